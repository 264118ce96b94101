import type { Command } from 'commander';
import { type AdminRunner, UsageError } from '../admin/admin.cli.js';

/** `redflag webhook list|backlog|redeliver` and `redflag watchlist count`: operators' view, never a secret or value. */
export function registerWebhookCommands(program: Command, run: AdminRunner): void {
  const print = (json: boolean | undefined, result: unknown, text: () => string) => {
    console.log(json ? JSON.stringify(result, null, 2) : text());
  };
  const webhook = program
    .command('webhook')
    .description("companies' webhook endpoints and the delivery backlog")
    .argument('[command]')
    .action((sub?: string) => {
      throw new UsageError(
        sub ? `unknown command 'webhook ${sub}' (use list|backlog|redeliver)` : 'missing command: webhook list|backlog|redeliver',
      );
    });
  webhook
    .command('list')
    .description("a company's endpoints (URL, events, status)")
    .argument('<companyId>')
    .option('--json', 'machine-readable output')
    .action(async (companyId: string, o: { json?: boolean }) => {
      const r = (await run('webhook.list', { companyId })) as {
        webhooks: Array<{ id: string; url: string; events: string[]; status: string }>;
      };
      print(o.json, r, () =>
        r.webhooks.length === 0
          ? 'No webhook endpoints.'
          : r.webhooks.map((w) => `${w.id}  ${w.status.padEnd(8)}  ${w.url}  ${w.events.join(',')}`).join('\n'),
      );
    });
  webhook
    .command('backlog')
    .description('deliveries pending, failed and delivered (all endpoints, or one)')
    .option('--endpoint <id>', 'one endpoint')
    .option('--json', 'machine-readable output')
    .action(async (o: { endpoint?: string; json?: boolean }) => {
      const r = (await run('webhook.backlog', { endpointId: o.endpoint })) as {
        pending: number;
        failed: number;
        delivered: number;
        oldestPendingAt: string | null;
      };
      print(
        o.json,
        r,
        () =>
          `pending ${r.pending}, failed ${r.failed}, delivered ${r.delivered}` +
          (r.oldestPendingAt ? `; oldest pending since ${r.oldestPendingAt}` : ''),
      );
    });
  webhook
    .command('redeliver')
    .description('send one delivery again (same webhook-id)')
    .argument('<deliveryId>')
    .option('--json', 'machine-readable output')
    .action(async (deliveryId: string, o: { json?: boolean }) => {
      const r = (await run('webhook.redeliver', { deliveryId })) as { delivery: { id: string } };
      print(o.json, r, () => `Delivery ${r.delivery.id} queued again.`);
    });

  program
    .command('watchlist')
    .description("companies' watchlists")
    .command('count')
    .description('how many identifiers a company watches')
    .argument('<companyId>')
    .option('--json', 'machine-readable output')
    .action(async (companyId: string, o: { json?: boolean }) => {
      const r = (await run('watchlist.count', { companyId })) as { count: number };
      print(o.json, r, () => `${r.count} watched identifiers.`);
    });
}
