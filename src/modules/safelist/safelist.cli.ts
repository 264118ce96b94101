import type { Command } from 'commander';
import type { AdminRunner } from '../admin/admin.cli.js';

interface EntryJson {
  id: string;
  label: string;
  reason: string;
  createdAt: string;
}

/** `redflag safelist add|list|remove`: run like the other administration commands (in process or through the server's socket). */
export function registerSafelistCommands(program: Command, run: AdminRunner): void {
  const safelist = program
    .command('safelist')
    .description('identifiers that must never be listed (stored as blind indexes only)');
  safelist
    .command('add')
    .description('add an identifier; reports already carrying it are listed for review, not changed')
    .argument('<label>', 'identifier type (account, phone, email, bvn, ...)')
    .argument('<value>', 'the value, written any usual way')
    .requiredOption('--reason <text>', 'why it must never be listed')
    .option('--json', 'machine-readable output')
    .action(async (label: string, value: string, o: { reason: string; json?: boolean }) => {
      const r = (await run('safelist.add', { label, value, reason: o.reason })) as {
        entry: EntryJson;
        reportsToReview: Array<{ id: string; companyId: string; kind: string; status: string }>;
      };
      if (o.json) return console.log(JSON.stringify(r, null, 2));
      console.log(`Added ${r.entry.label} to the safelist (${r.entry.id}).`);
      if (r.reportsToReview.length === 0) return console.log('No existing report carries it.');
      console.log(`${r.reportsToReview.length} existing report(s) carry it; review them (they were not changed):`);
      for (const x of r.reportsToReview) console.log(`  ${x.kind} ${x.id}  company ${x.companyId}  ${x.status}`);
    });
  safelist
    .command('list')
    .description('list the safelist (labels and reasons; values are never stored)')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const r = (await run('safelist.list', {})) as { entries: EntryJson[] };
      if (o.json) return console.log(JSON.stringify(r, null, 2));
      if (r.entries.length === 0) return console.log('The safelist is empty.');
      for (const e of r.entries) console.log(`${e.id}  ${e.label.padEnd(14)}  ${e.createdAt}  ${e.reason}`);
    });
  safelist
    .command('remove')
    .description('remove an entry')
    .argument('<id>')
    .option('--json', 'machine-readable output')
    .action(async (id: string, o: { json?: boolean }) => {
      const r = (await run('safelist.remove', { id })) as { entry: EntryJson };
      console.log(o.json ? JSON.stringify(r, null, 2) : `Removed ${r.entry.label} entry ${r.entry.id} from the safelist.`);
    });
}
