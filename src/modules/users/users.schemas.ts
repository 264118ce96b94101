import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, StringEnum } from '../../http/schema-helpers.js';
import { PASSWORD_MAX_LENGTH } from './passwords.js';
import { NAME_MAX_LENGTH } from './users.service.js';

const Uuid = Type.String({ format: 'uuid' });
const Email = Type.String({ minLength: 3, maxLength: 254, description: 'E-mail address (sign-in is by e-mail)' });
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH });
/** A link's token, bounded alike wherever one is taken. */
const LinkToken = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const User = Type.Object({
  id: Uuid,
  email: Type.String(),
  name: Nullable(Type.String()),
  role: StringEnum(['admin', 'analyst', 'viewer', 'moderator'] as const, {
    description: 'Company users: admin, analyst, viewer. Operator users: moderator, admin',
  }),
  status: StringEnum(['invited', 'active', 'suspended', 'removed'] as const),
  companyId: Nullable(Uuid),
  operatorId: Nullable(Uuid),
  totpEnrolled: Type.Boolean(),
  createdAt: DateTime(),
});

export const UserResponse = Envelope(Type.Object({ user: User }));
export const UsersResponse = Envelope(Type.Object({ users: Type.Array(User) }));
export const UserIdParams = Type.Object({ userId: Type.String({ description: 'User id (uuid)' }) });

export const SignInBody = Type.Object(
  {
    email: Email,
    password: Password,
    totp: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'The 6-digit code, or a recovery code' })),
    memberId: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'The company (or operators) to sign in to. Needed only after a 409 MEMBER_CHOICE_REQUIRED, which lists the choices',
      }),
    ),
  },
  { additionalProperties: false },
);
/** Whose desk this is: a person with accounts at several members needs to see which one they are in. */
const Member = Type.Object(
  { id: Type.String({ format: 'uuid' }), name: Type.String() },
  { description: 'The company (or operators) the account belongs to: its id and name' },
);

export const SignInResponse = Envelope(
  Type.Object({
    user: User,
    member: Member,
    expiresAt: DateTime('When the session ends at the latest'),
    totpEnrolmentRequired: Type.Boolean({
      description: 'True: this session can only enrol a second factor (POST /api/v1/auth/totp) until it is confirmed',
    }),
  }),
);
export const MeResponse = Envelope(Type.Object({ user: User, member: Member, totpEnrolmentRequired: Type.Boolean() }));
export const EmptyResponse = Envelope(Type.Object({}));

export const TotpEnrolResponse = Envelope(
  Type.Object({
    secret: Type.String({ description: 'Base32 secret for the authenticator app, shown this once' }),
    otpauthUrl: Type.String({ description: 'The same as an otpauth:// URL (render it as a QR code)' }),
  }),
);
export const TotpConfirmBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 32, description: 'The current 6-digit code' }) },
  { additionalProperties: false },
);
export const TotpConfirmResponse = Envelope(
  Type.Object({
    user: User,
    recoveryCodes: Type.Array(Type.String(), { description: 'Each works once in place of a code; shown this once' }),
  }),
);

export const RecoveryCodesResponse = Envelope(
  Type.Object({
    recoveryCodes: Type.Array(Type.String(), {
      description: 'Each works once in place of a code; shown this once. The earlier codes no longer work',
    }),
  }),
);

export const ChangePasswordBody = Type.Object(
  { currentPassword: Password, newPassword: Password },
  { additionalProperties: false },
);

export const AcceptInvitationBody = Type.Object(
  {
    token: LinkToken('The `token` query parameter of the invite URL'),
    password: Password,
    name: Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH }),
  },
  { additionalProperties: false },
);

export const CompanyInviteBody = Type.Object(
  { email: Email, role: StringEnum(['admin', 'analyst', 'viewer'] as const) },
  { additionalProperties: false },
);
export const OperatorInviteBody = Type.Object(
  {
    companyId: Type.Optional(Type.String({ description: 'Invite into this company…' })),
    operatorId: Type.Optional(Type.String({ description: '…or into the operators' })),
    email: Email,
    role: StringEnum(['admin', 'analyst', 'viewer', 'moderator'] as const),
  },
  { additionalProperties: false },
);
export const InvitationResponse = Envelope(
  Type.Object({
    userId: Uuid,
    inviteUrl: Type.String({ description: 'Single-use link to hand over; its token is stored only as a hash' }),
    expiresAt: DateTime(),
    emailed: Type.Boolean({ description: 'Whether it was also e-mailed (REDFLAG_SMTP_URL)' }),
    user: User,
  }),
);
export const PasswordLinkResponse = Envelope(
  Type.Object({
    userId: Uuid,
    kind: StringEnum(['invitation', 'password_reset'] as const, {
      description:
        'invitation: the person has not joined yet, and this is a new invitation (earlier links stop working); password_reset: a link to choose a new password',
    }),
    url: Nullable(
      Type.String({
        description:
          'Single-use link to hand over; its token is stored only as a hash. Null when it was e-mailed: then only the person holds it',
      }),
    ),
    expiresAt: DateTime(),
    emailed: Type.Boolean({ description: 'Whether it was e-mailed (REDFLAG_SMTP_URL)' }),
    user: User,
  }),
);
export const ForgotPasswordBody = Type.Object({ email: Email }, { additionalProperties: false });
export const ForgotPasswordResponse = Envelope(
  Type.Object({
    mailed: Type.Boolean({
      description:
        'Whether this service sends e-mail at all (not whether the address has an account): false means ask an administrator of your member for a link',
    }),
  }),
);
export const ResetPasswordBody = Type.Object(
  {
    token: LinkToken('The `token` query parameter of the link'),
    password: Password,
  },
  { additionalProperties: false },
);
export const LinkCheckBody = Type.Object(
  { token: LinkToken('The `token` query parameter of the invitation or password link') },
  { additionalProperties: false },
);
export const LinkCheckResponse = Envelope(
  Type.Object({
    link: Type.Object({
      purpose: StringEnum(['invitation', 'password_reset'] as const, {
        description:
          'invitation: accept it at /api/v1/auth/invitations/accept; password_reset: choose the password at /api/v1/auth/password-reset/accept',
      }),
      email: Type.String({ description: 'The address of the account the link was made for (the one to sign in with)' }),
      memberName: Type.String({
        description: "The business name of the member company the account belongs to, or 'Redflag operators' for the operators",
      }),
      expiresAt: DateTime('When the link stops working'),
    }),
  }),
);
export const ChangeRoleBody = Type.Object(
  { role: StringEnum(['admin', 'analyst', 'viewer'] as const) },
  { additionalProperties: false },
);
export const AdminUsersQuery = Type.Object({
  companyId: Type.Optional(Type.String({ format: 'uuid' })),
  operatorId: Type.Optional(Type.String({ format: 'uuid' })),
});
