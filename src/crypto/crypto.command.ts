import type { Command } from 'commander';

/**
 * `redflag crypto ...`: key rotation and root-key generation. The database stack is imported when
 * a command runs, so the CLI starts fast for every other command.
 */
export function registerCryptoCommands(program: Command): void {
  const crypto = program.command('crypto').description('encryption keys');

  crypto
    .command('rotate')
    .description(
      'add a new encryption key, make it primary and re-encrypt every stored value under it (resumes an interrupted run)',
    )
    .option('--batch-size <n>', 'values re-encrypted per transaction', parseBatchSize, 500)
    .option(SETTLE_FLAG, SETTLE_HELP, parseSeconds)
    .option('--json', 'machine-readable output')
    .action(async (options: { batchSize: number; settleSeconds?: number; json?: boolean }) => {
      const { describeRotation, rotate } = await import('./crypto.rotate-command.js');
      const summary = await rotate(options);
      if (options.json) console.log(JSON.stringify(summary));
      else console.log(describeRotation(summary));
      if (summary.failed > 0) process.exitCode = 1;
    });

  crypto
    .command('rotate-root')
    .description(
      're-wrap every stored key (data keys, index keys, check, URL signing) under a new root key; the old root is refused afterwards (resumes an interrupted run)',
    )
    .requiredOption('--new-key-file <file>', 'file holding the new root key (from: npx redflag crypto new-master-key)')
    .option('--batch-size <n>', 'stored keys re-wrapped per transaction', parseBatchSize, 50)
    .option('--json', 'machine-readable output')
    .action(async (options: { newKeyFile: string; batchSize: number; json?: boolean }) => {
      const { describeRootRotation, rotateRootCommand } = await import('./crypto.keys-commands.js');
      const summary = await rotateRootCommand(options);
      console.log(options.json ? JSON.stringify(summary) : describeRootRotation(summary));
    });

  crypto
    .command('reindex')
    .description(
      'move every blind index to a new version of its label key, searches finding both meanwhile, then delete the old key (resumes an interrupted run)',
    )
    .option('--label <label...>', 'only these identifier labels (default: all)')
    .option('--batch-size <n>', 'identifiers re-indexed per transaction', parseBatchSize, 1000)
    .option(SETTLE_FLAG, SETTLE_HELP, parseSeconds)
    .option('--json', 'machine-readable output')
    .action(async (options: { label?: string[]; batchSize: number; settleSeconds?: number; json?: boolean }) => {
      const { describeReindex, reindexCommand } = await import('./crypto.keys-commands.js');
      const summary = await reindexCommand({ ...options, labels: options.label });
      console.log(options.json ? JSON.stringify(summary) : describeReindex(summary));
      if (summary.failed > 0 || summary.unfinished.length > 0) process.exitCode = 1;
    });

  crypto
    .command('new-master-key')
    .description('print a new random root key for REDFLAG_MASTER_KEY (changes nothing)')
    .action(async () => {
      const { newRootKeyText } = await import('./root-key.js');
      console.log(newRootKeyText());
    });
}

const SETTLE_FLAG = '--settle-seconds <n>';
const SETTLE_HELP =
  'after adding a key, wait this long for running instances to re-read the keys (default: 35 on a PostgreSQL server, 0 embedded)';

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 3600)
    throw new Error('--settle-seconds must be an integer from 0 to 3600');
  return seconds;
}

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > 10_000) throw new Error('--batch-size must be an integer from 1 to 10000');
  return size;
}
