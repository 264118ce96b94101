import type { Kysely } from 'kysely';
import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { Config } from '../../config.js';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { CompanyStatus, Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { IDENTIFIER_LABELS, type IdentifierLabel, shippedBankDirectory } from '../../identifiers/normalize.js';
import { listJobRuns } from '../../jobs/job-runs.repository.js';
import { createBankLinksService } from '../companies/bank-links.service.js';
import { createCompaniesService } from '../companies/companies.service.js';
import type { KeyEvents } from '../keys/key-events.js';
import { createKeysService } from '../keys/keys.service.js';
import { createOperatorsService } from '../operators/operators.service.js';
import { createSafelistService, type SafelistService } from '../safelist/safelist.service.js';
import { createScreeningsAdmin, type ScreeningsAdmin } from '../screenings/screenings.admin.js';
import type { Mailer } from '../users/mailer.js';
import { createPasswordLinksService } from '../users/password-links.service.js';
import { createUsersService } from '../users/users.service.js';
import { createWebhooksAdmin } from '../webhooks/webhooks.admin.js';

/** The services behind every administration path: HTTP admin routes, the control socket, the CLI. */
export function createAdminServices(deps: {
  db: Kysely<Database>;
  events: KeyEvents;
  config: Pick<Config, 'publicUrl' | 'invitationTtlHours' | 'passwordResetTtlHours' | 'screeningRowsPerSecond'>;
  mailer?: Mailer | undefined;
  now?: () => Date;
  log?: { warn(obj: object, msg: string): void };
  /** The blind index and the keyring: present in the server, loaded by the CLI for safelist commands only. */
  crypto?: Pick<Crypto, 'blindIndex' | 'keyring'> | undefined;
}) {
  const { crypto } = deps;
  return {
    companies: createCompaniesService(deps),
    keys: createKeysService(deps),
    operators: createOperatorsService(deps),
    users: createUsersService({
      db: deps.db,
      publicUrl: deps.config.publicUrl,
      invitationTtlMs: deps.config.invitationTtlHours * 3_600_000,
      mailer: deps.mailer,
      now: deps.now ?? (() => new Date()),
      log: deps.log,
    }),
    passwordLinks: createPasswordLinksService({
      db: deps.db,
      publicUrl: deps.config.publicUrl,
      invitationTtlMs: deps.config.invitationTtlHours * 3_600_000,
      resetTtlMs: deps.config.passwordResetTtlHours * 3_600_000,
      mailer: deps.mailer,
      now: deps.now ?? (() => new Date()),
      log: deps.log,
    }),
    /** Needs the blind-index key: present in the server, loaded by the CLI for safelist commands only. */
    safelist: crypto ? createSafelistService({ db: deps.db, crypto, banks: shippedBankDirectory() }) : undefined,
    /** Every job's last run across instances, from the scheduler's table. */
    jobs: { status: () => listJobRuns(deps.db) },
    bankLinks: createBankLinksService(deps),
    webhooks: createWebhooksAdmin(deps),
    /** Needs the keyring: in the server, for `redflag screen` through the control socket. */
    screenings: crypto
      ? createScreeningsAdmin({
          db: deps.db,
          keyring: crypto.keyring,
          rowsPerSecond: deps.config.screeningRowsPerSecond,
          log: deps.log,
        })
      : undefined,
  };
}
export type AdminServices = ReturnType<typeof createAdminServices>;

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Optional = Type.Optional;

function command<S extends TSchema>(args: S, run: (services: AdminServices, args: Static<S>) => Promise<unknown>) {
  return { args, run: run as (services: AdminServices, args: unknown) => Promise<unknown> };
}

/**
 * The `redflag company|key|operator` commands as data: each validates its arguments and calls one
 * service function. The CLI runs them in process when it can open the database, or asks the
 * running server to run them through its control socket — the same code either way.
 */
export const ADMIN_COMMANDS = {
  'company.create': command(
    Type.Object(
      { name: Type.String(), rateLimitPerMinute: Optional(Type.Integer()), allowDuplicate: Optional(Type.Boolean()) },
      { additionalProperties: false },
    ),
    async (s, a) => {
      const r = await s.companies
        .create({ businessName: a.name, rateLimitPerMinute: a.rateLimitPerMinute, allowDuplicate: a.allowDuplicate })
        .catch((error: unknown) => {
          // The service speaks to HTTP callers; at the command line the way out is a flag.
          if (error instanceof AppError && error.code === 'COMPANY_NAME_TAKEN') {
            throw new AppError(error.code, error.message.replace('send allowDuplicate: true', 'pass --allow-duplicate'));
          }
          throw error;
        });
      return { companyId: r.company.id, keyId: r.key.id, apiKey: r.apiKey, company: r.company };
    },
  ),
  'company.list': command(
    Type.Object(
      {
        page: Optional(Type.Integer()),
        limit: Optional(Type.Integer()),
        status: Optional(Type.Unsafe<CompanyStatus>({ type: 'string', enum: ['active', 'suspended'] })),
      },
      { additionalProperties: false },
    ),
    (s, a) => s.companies.list({ page: a.page ?? 1, limit: a.limit ?? 100, status: a.status }),
  ),
  'company.suspend': command(Type.Object({ companyId: Id }, { additionalProperties: false }), async (s, a) => ({
    company: await s.companies.suspend(a.companyId),
  })),
  'company.activate': command(Type.Object({ companyId: Id }, { additionalProperties: false }), async (s, a) => ({
    company: await s.companies.activate(a.companyId),
  })),
  'company.link-bank': command(
    Type.Object({ companyId: Id, bankSlug: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
    (s, a) => s.bankLinks.link(a.companyId, a.bankSlug),
  ),
  'webhook.list': command(Type.Object({ companyId: Id }, { additionalProperties: false }), async (s, a) => ({
    webhooks: await s.webhooks.list(a.companyId),
  })),
  'webhook.backlog': command(Type.Object({ endpointId: Optional(Id) }, { additionalProperties: false }), (s, a) =>
    s.webhooks.backlog(a.endpointId),
  ),
  'webhook.redeliver': command(Type.Object({ deliveryId: Id }, { additionalProperties: false }), async (s, a) => ({
    delivery: await s.webhooks.redeliver(a.deliveryId),
  })),
  'watchlist.count': command(Type.Object({ companyId: Id }, { additionalProperties: false }), async (s, a) => ({
    count: await s.webhooks.watchlistCount(a.companyId),
  })),
  'key.issue': command(
    Type.Object({ companyId: Id, expiresInDays: Optional(Type.Integer()) }, { additionalProperties: false }),
    async (s, a) => {
      const r = await s.keys.issueForCompany(a.companyId, { expiresInDays: a.expiresInDays });
      return { keyId: r.key.id, apiKey: r.apiKey, key: r.key };
    },
  ),
  'key.list': command(
    Type.Object({ companyId: Optional(Id), operatorId: Optional(Id) }, { additionalProperties: false }),
    async (s, a) => {
      if (a.companyId) return { keys: await s.keys.listForCompany(a.companyId) };
      if (a.operatorId) return { keys: await s.keys.listForOperator(a.operatorId) };
      throw AppError.validation([{ field: 'companyId', message: 'give a company or an operator' }]);
    },
  ),
  'key.revoke': command(Type.Object({ keyId: Id }, { additionalProperties: false }), async (s, a) => ({
    key: await s.keys.revoke(a.keyId),
  })),
  'key.rotate': command(
    Type.Object(
      { keyId: Id, graceHours: Optional(Type.Number()), expiresInDays: Optional(Type.Integer()) },
      { additionalProperties: false },
    ),
    async (s, a) => {
      const r = await s.keys.rotate(a.keyId, { graceHours: a.graceHours, expiresInDays: a.expiresInDays });
      return { keyId: r.key.id, apiKey: r.apiKey, key: r.key, previous: r.previous };
    },
  ),
  'user.invite': command(
    Type.Object(
      { companyId: Optional(Id), operatorId: Optional(Id), email: Type.String(), role: Type.String() },
      { additionalProperties: false },
    ),
    async (s, a) => {
      const { userId, inviteUrl, expiresAt, emailed } = await s.users.invite({ ...a, invitedBy: 'The Redflag operators' });
      return { userId, inviteUrl, expiresAt, emailed };
    },
  ),
  'user.list': command(
    Type.Object({ companyId: Optional(Id), operatorId: Optional(Id) }, { additionalProperties: false }),
    async (s, a) => ({ users: await s.users.list({ everyone: true }, a) }),
  ),
  'user.role': command(Type.Object({ userId: Id, role: Type.String() }, { additionalProperties: false }), async (s, a) => ({
    user: await s.users.changeRole({ everyone: true }, a.userId, a.role),
  })),
  'user.remove': command(Type.Object({ userId: Id }, { additionalProperties: false }), async (s, a) => ({
    user: await s.users.remove({ everyone: true }, a.userId),
  })),
  'user.suspend': command(Type.Object({ userId: Id }, { additionalProperties: false }), async (s, a) => ({
    user: await s.users.setSuspended(a.userId, true),
  })),
  'user.activate': command(Type.Object({ userId: Id }, { additionalProperties: false }), async (s, a) => ({
    user: await s.users.setSuspended(a.userId, false),
  })),
  'safelist.add': command(
    Type.Object(
      {
        label: Type.Unsafe<IdentifierLabel>({ type: 'string', enum: [...IDENTIFIER_LABELS] }),
        value: Type.String({ minLength: 1, maxLength: 320 }),
        reason: Type.String(),
      },
      { additionalProperties: false },
    ),
    (s, a) => safelistOf(s).add({ requestId: 'cli' }, a),
  ),
  'safelist.list': command(Type.Object({}, { additionalProperties: false }), (s) => safelistOf(s).list()),
  'safelist.remove': command(Type.Object({ id: Id }, { additionalProperties: false }), (s, a) =>
    safelistOf(s).remove({ requestId: 'cli' }, a.id),
  ),
  'screening.start': command(
    Type.Object({ companyId: Id, file: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false }),
    async (s, a) => ({ job: await screeningsOf(s).start(a.companyId, a.file) }),
  ),
  'screening.get': command(Type.Object({ companyId: Id, id: Id }, { additionalProperties: false }), async (s, a) => ({
    job: await screeningsOf(s).get(a.companyId, a.id),
  })),
  'screening.results': command(
    Type.Object(
      { companyId: Id, id: Id, matchesFile: Type.String({ maxLength: 4096 }), errorsFile: Type.String({ maxLength: 4096 }) },
      { additionalProperties: false },
    ),
    (s, a) => screeningsOf(s).results(a.companyId, a.id, { matches: a.matchesFile, errors: a.errorsFile }),
  ),
  'jobs.status': command(Type.Object({}, { additionalProperties: false }), async (s) => ({ jobs: await s.jobs.status() })),
  'operator.create': command(Type.Object({ name: Type.String() }, { additionalProperties: false }), async (s, a) => {
    const r = await s.operators.create({ name: a.name });
    return { operatorId: r.operator.id, keyId: r.key.id, apiKey: r.apiKey, operator: r.operator };
  }),
};

export type AdminCommandName = keyof typeof ADMIN_COMMANDS;

function safelistOf(services: AdminServices): SafelistService {
  if (!services.safelist) throw new Error('the safelist needs the encryption keys, which this process has not loaded');
  return services.safelist;
}

function screeningsOf(services: AdminServices): ScreeningsAdmin {
  if (!services.screenings) throw new Error('screening through this process needs the encryption keys, which it has not loaded');
  return services.screenings;
}

export function isAdminCommand(name: string): name is AdminCommandName {
  return Object.hasOwn(ADMIN_COMMANDS, name);
}

/**
 * Runs one command and returns its result as plain JSON (dates as ISO strings), exactly what the
 * control socket sends, so the CLI formats one shape whichever way the command ran.
 */
export async function runAdminCommand(services: AdminServices, name: string, args: unknown): Promise<unknown> {
  if (!isAdminCommand(name)) throw AppError.validation([{ field: 'command', message: `unknown command "${name}"` }]);
  const { args: schema, run } = ADMIN_COMMANDS[name];
  if (!Value.Check(schema, args)) {
    const errors = Value.Errors(schema, args).map((e) => ({ field: e.instancePath.replace(/^\//, ''), message: e.message }));
    throw AppError.validation(errors);
  }
  return JSON.parse(JSON.stringify(await run(services, args)));
}
