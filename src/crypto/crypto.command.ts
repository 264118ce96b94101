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
    .option('--json', 'machine-readable output')
    .action(async (options: { batchSize: number; json?: boolean }) => {
      const { describeRotation, rotate } = await import('./crypto.rotate-command.js');
      const summary = await rotate(options);
      if (options.json) console.log(JSON.stringify(summary));
      else console.log(describeRotation(summary));
      if (summary.failed > 0) process.exitCode = 1;
    });

  crypto
    .command('new-master-key')
    .description('print a new random root key for REDFLAG_MASTER_KEY (changes nothing)')
    .action(async () => {
      const { newRootKeyText } = await import('./root-key.js');
      console.log(newRootKeyText());
    });
}

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > 10_000) throw new Error('--batch-size must be an integer from 1 to 10000');
  return size;
}
