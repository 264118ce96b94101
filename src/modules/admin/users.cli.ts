import type { Command } from 'commander';
import { type AdminRunner, table, UsageError, when } from './admin.cli.js';

interface UserJson {
  id: string;
  email: string;
  name: string | null;
  role: string;
  status: string;
  companyId: string | null;
  operatorId: string | null;
  totpEnrolled: boolean;
  createdAt: string;
}

function owner(o: { company?: string; operator?: string }) {
  if (!o.company === !o.operator)
    throw new UsageError("give exactly one of '--company <companyId>' and '--operator <operatorId>'");
  return o.company ? { companyId: o.company } : { operatorId: o.operator };
}

/** `redflag user invite|list|role|remove|suspend|activate`: people, beside the keys. */
export function registerUserCommands(program: Command, run: AdminRunner): void {
  const print = (json: boolean | undefined, result: unknown, text: () => string) => {
    console.log(json ? JSON.stringify(result, null, 2) : text());
  };
  const user = program
    .command('user')
    .description('invite, list, change the role of, remove, suspend and activate users (people)')
    .argument('[command]')
    .action((sub?: string) => {
      const commands = 'invite|list|role|remove|suspend|activate';
      throw new UsageError(sub ? `unknown command 'user ${sub}' (use ${commands})` : `missing command: user ${commands}`);
    });

  user
    .command('invite')
    .description('invite a user into a company or the operators; prints the single-use invite URL (valid 72 h)')
    .option('--company <companyId>', 'into this company (roles: admin, analyst, viewer)')
    .option('--operator <operatorId>', 'into the operators (roles: moderator, admin)')
    .requiredOption('--email <address>', "the user's e-mail address (they sign in with it)")
    .requiredOption('--role <role>', 'admin, analyst or viewer; moderator or admin for operators')
    .option('--json', 'machine-readable output')
    .action(async (o: { company?: string; operator?: string; email: string; role: string; json?: boolean }) => {
      const r = (await run('user.invite', { ...owner(o), email: o.email, role: o.role })) as {
        userId: string;
        inviteUrl: string;
        expiresAt: string;
        emailed: boolean;
      };
      const { userId, inviteUrl, expiresAt } = r;
      print(o.json, { userId, inviteUrl, expiresAt }, () =>
        [
          `Invited ${o.email} as ${o.role} (user ${userId})${r.emailed ? '; the link was also e-mailed' : ''}.`,
          `Invite URL (works once, until ${when(expiresAt)}; hand it over safely):`,
          `  ${inviteUrl}`,
        ].join('\n'),
      );
    });

  user
    .command('list')
    .description("list a company's or the operators' users (all users without an option)")
    .option('--company <companyId>', 'the company')
    .option('--operator <operatorId>', 'the operators')
    .option('--json', 'machine-readable output')
    .action(async (o: { company?: string; operator?: string; json?: boolean }) => {
      const filter = o.company ? { companyId: o.company } : o.operator ? { operatorId: o.operator } : {};
      const r = (await run('user.list', filter)) as { users: UserJson[] };
      print(o.json, r, () => {
        if (r.users.length === 0) return 'No users.';
        const rows = r.users.map((u) => [u.id, u.email, u.role, u.status, u.totpEnrolled ? 'yes' : 'no', when(u.createdAt)]);
        return table(['ID', 'E-MAIL', 'ROLE', 'STATUS', 'TOTP', 'CREATED'], rows);
      });
    });

  user
    .command('role')
    .description("change a user's role (their sessions end at once)")
    .argument('<userId>')
    .requiredOption('--role <role>', 'the new role')
    .option('--json', 'machine-readable output')
    .action(async (userId: string, o: { role: string; json?: boolean }) => {
      const r = (await run('user.role', { userId, role: o.role })) as { user: UserJson };
      print(o.json, r, () => `${r.user.email} is now ${r.user.role}; their sessions have ended.`);
    });

  for (const [name, text] of [
    ['remove', 'removed'],
    ['suspend', 'suspended'],
    ['activate', 'active again'],
  ] as const) {
    user
      .command(name)
      .description(`${name} a user${name === 'activate' ? ' after a suspension' : ' (their sessions end at once)'}`)
      .argument('<userId>')
      .option('--json', 'machine-readable output')
      .action(async (userId: string, o: { json?: boolean }) => {
        const r = (await run(`user.${name}`, { userId })) as { user: UserJson };
        print(o.json, r, () => `${r.user.email} is ${text}.`);
      });
  }
}
