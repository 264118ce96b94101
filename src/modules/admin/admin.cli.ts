import { type Command, InvalidArgumentError } from 'commander';
import type { AdminCommandName } from './admin.commands.js';

/** Runs one administration command and returns its JSON result (see admin.client.ts). */
export type AdminRunner = (name: AdminCommandName, args: object) => Promise<unknown>;

interface CompanyJson {
  id: string;
  businessName: string;
  status: string;
  rateLimitPerMinute: number | null;
  createdAt: string;
}
interface KeyJson {
  id: string;
  prefix: string;
  status: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  replacedBy: string | null;
}

/** A usage mistake the parser cannot see (e.g. neither of two options): exit code 2 like commander's own. */
export class UsageError extends Error {}

function integerOption(min: number, max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return n;
  };
}

function hoursOption(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 720)
    throw new InvalidArgumentError('must be a number of hours from 0 to 720');
  return n;
}

export const when = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

function newKeyText(what: string, apiKey: string): string {
  return `${what}\nAPI key (shown only now; store it safely):\n  ${apiKey}`;
}

/**
 * `redflag company|key|operator ...`. Each command prints JSON with --json, readable text
 * otherwise; failures are one line on stderr with a non-zero exit code (cli.ts).
 */
export function registerAdminCommands(program: Command, run: AdminRunner): void {
  const print = (json: boolean | undefined, result: unknown, text: () => string) => {
    console.log(json ? JSON.stringify(result, null, 2) : text());
  };
  const group = (name: string, description: string, subcommands: string) =>
    program
      .command(name)
      .description(description)
      // One `<command>` in the usage line: commander would add its own `[command]` to the argument's.
      .usage('<command> [options]')
      .argument('[command]')
      .action((sub?: string) => {
        throw new UsageError(
          sub ? `unknown command '${name} ${sub}' (use ${subcommands})` : `missing command: ${name} ${subcommands}`,
        );
      });

  const company = group(
    'company',
    'create, list, suspend, activate and link companies to banks',
    'create|list|suspend|activate|link-bank',
  );
  company
    .command('create')
    .description('create a company and its first API key')
    .requiredOption('--name <name>', 'business name')
    .option(
      '--rate-limit <n>',
      'requests a minute for each of its keys (default: the service setting)',
      integerOption(1, 1_000_000),
    )
    .option('--allow-duplicate', 'create it even if a company of this name exists')
    .option('--json', 'machine-readable output')
    .action(async (o: { name: string; rateLimit?: number; allowDuplicate?: boolean; json?: boolean }) => {
      const r = (await run('company.create', {
        name: o.name,
        rateLimitPerMinute: o.rateLimit,
        allowDuplicate: o.allowDuplicate,
      })) as {
        companyId: string;
        apiKey: string;
        company: CompanyJson;
      };
      print(o.json, r, () => newKeyText(`Created company "${r.company.businessName}" (${r.companyId}).`, r.apiKey));
    });
  company
    .command('list')
    .description('list companies, newest first')
    .option('--status <status>', 'active or suspended')
    .option('--page <n>', 'page number', integerOption(1, 1_000_000), 1)
    .option('--limit <n>', 'companies a page', integerOption(1, 100), 100)
    .option('--json', 'machine-readable output')
    .action(async (o: { status?: string; page: number; limit: number; json?: boolean }) => {
      if (o.status !== undefined && o.status !== 'active' && o.status !== 'suspended') {
        throw new UsageError("option '--status <status>' must be active or suspended");
      }
      const r = (await run('company.list', { page: o.page, limit: o.limit, status: o.status })) as {
        data: CompanyJson[];
        meta: { total: number; page: number; limit: number };
      };
      print(o.json, r, () => {
        if (r.data.length === 0) return r.meta.total === 0 ? 'No companies yet.' : `No companies on page ${r.meta.page}.`;
        const rows = r.data.map((c) => [
          c.id,
          c.businessName,
          c.status,
          String(c.rateLimitPerMinute ?? 'default'),
          when(c.createdAt),
        ]);
        const shown = `${r.data.length} of ${r.meta.total} companies (page ${r.meta.page})`;
        return `${table(['ID', 'NAME', 'STATUS', 'RATE LIMIT', 'CREATED'], rows)}\n${shown}`;
      });
    });
  for (const [name, verb] of [
    ['suspend', 'Suspended'],
    ['activate', 'Activated'],
  ] as const) {
    company
      .command(name)
      .description(name === 'suspend' ? 'suspend a company: its keys are refused (403)' : 'activate a suspended company')
      .argument('<companyId>')
      .option('--json', 'machine-readable output')
      .action(async (companyId: string, o: { json?: boolean }) => {
        const r = (await run(`company.${name}`, { companyId })) as { company: CompanyJson };
        print(o.json, r, () => `${verb} company "${r.company.businessName}" (${r.company.id}).`);
      });
  }

  company
    .command('link-bank')
    .description('link a company to the bank-list entry it is (it then receives public_report.published)')
    .argument('<companyId>')
    .argument('<bankSlug>', 'slug from the bank list (GET /api/v1/banks)')
    .option('--json', 'machine-readable output')
    .action(async (companyId: string, bankSlug: string, o: { json?: boolean }) => {
      const r = (await run('company.link-bank', { companyId, bankSlug })) as {
        companyId: string;
        bank: { name: string; slug: string };
      };
      print(o.json, r, () => `Linked company ${r.companyId} to ${r.bank.name} (${r.bank.slug}).`);
    });

  const key = group('key', 'issue, list, revoke and rotate API keys', 'issue|list|revoke|rotate');
  key
    .command('issue')
    .description('issue another API key for a company')
    .requiredOption('--company <companyId>', 'the company')
    .option('--expires-in-days <n>', 'the key stops working after this many days', integerOption(1, 3650))
    .option('--json', 'machine-readable output')
    .action(async (o: { company: string; expiresInDays?: number; json?: boolean }) => {
      const r = (await run('key.issue', { companyId: o.company, expiresInDays: o.expiresInDays })) as {
        keyId: string;
        apiKey: string;
        key: KeyJson;
      };
      const expiry = r.key.expiresAt ? `, expires ${when(r.key.expiresAt)}` : '';
      print(o.json, r, () => newKeyText(`Issued key ${r.keyId}${expiry}.`, r.apiKey));
    });
  key
    .command('list')
    .description("list a company's (or an operator's) API keys")
    .option('--company <companyId>', 'the company')
    .option('--operator <operatorId>', 'the operator')
    .option('--json', 'machine-readable output')
    .action(async (o: { company?: string; operator?: string; json?: boolean }) => {
      if (!o.company === !o.operator)
        throw new UsageError("give exactly one of '--company <companyId>' and '--operator <operatorId>'");
      const r = (await run('key.list', o.company ? { companyId: o.company } : { operatorId: o.operator })) as { keys: KeyJson[] };
      print(o.json, r, () => {
        if (r.keys.length === 0) return 'No keys.';
        const rows = r.keys.map((k) => [
          k.id,
          `${k.prefix}…`,
          k.status,
          when(k.createdAt),
          when(k.lastUsedAt),
          when(k.expiresAt),
        ]);
        return table(['ID', 'PREFIX', 'STATUS', 'CREATED', 'LAST USED', 'EXPIRES'], rows);
      });
    });
  key
    .command('revoke')
    .description('revoke an API key (refused everywhere within 5 seconds)')
    .argument('<keyId>')
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, o: { json?: boolean }) => {
      const r = (await run('key.revoke', { keyId })) as { key: KeyJson };
      print(o.json, r, () => `Revoked key ${r.key.id} (${r.key.prefix}…).`);
    });
  key
    .command('rotate')
    .description('issue a replacement key; the old one keeps working for the grace period')
    .argument('<keyId>')
    .option('--grace-hours <hours>', 'how long the old key keeps working (default 24; 0 ends it now)', hoursOption)
    .option('--expires-in-days <n>', 'the new key stops working after this many days', integerOption(1, 3650))
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, o: { graceHours?: number; expiresInDays?: number; json?: boolean }) => {
      const r = (await run('key.rotate', { keyId, graceHours: o.graceHours, expiresInDays: o.expiresInDays })) as {
        keyId: string;
        apiKey: string;
        previous: KeyJson;
      };
      print(o.json, r, () =>
        newKeyText(
          `Rotated: new key ${r.keyId}; the old key ${r.previous.id} works until ${when(r.previous.expiresAt)}.`,
          r.apiKey,
        ),
      );
    });

  const operator = group('operator', 'create operators (moderation and administration)', 'create');
  operator
    .command('create')
    .description('create an operator and its API key')
    .requiredOption('--name <name>', "the operator's name")
    .option('--json', 'machine-readable output')
    .action(async (o: { name: string; json?: boolean }) => {
      const r = (await run('operator.create', { name: o.name })) as { operatorId: string; apiKey: string };
      print(o.json, r, () => newKeyText(`Created operator "${o.name}" (${r.operatorId}).`, r.apiKey));
    });
}
