import { Command, CommanderError } from 'commander';
import { loadConfig } from './config.js';
import { registerCryptoCommands } from './crypto/crypto.command.js';
import { AppError } from './http/errors.js';
import { registerJobsCommands } from './jobs/jobs.cli.js';
import { type AdminRunner, registerAdminCommands, UsageError } from './modules/admin/admin.cli.js';
import { runAdminCommandAnywhere } from './modules/admin/admin.client.js';
import { registerUserCommands } from './modules/admin/users.cli.js';
import { registerSafelistCommands } from './modules/safelist/safelist.cli.js';
import { registerWebhookCommands } from './modules/webhooks/webhooks.cli.js';

// Heavy modules (the HTTP stack, the database engines) are imported by the commands that use
// them, so a command sent to a running server starts in a fraction of a second.

/**
 * Exit codes: 0 done, 1 the command failed (unknown id, refused state, unreachable database), 2 usage
 * mistake — an option's value the service refuses (an empty --name) is one too.
 */
const USAGE_EXIT = 2;

/** Service field names as the options that carry them, so a validation message names what the user typed. */
const OPTION_FOR_FIELD: Record<string, string> = {
  businessName: '--name',
  name: '--name',
  rateLimitPerMinute: '--rate-limit',
  expiresInDays: '--expires-in-days',
  graceHours: '--grace-hours',
  reason: '--reason',
};

/** One line on stderr, whatever went wrong. */
function fail(message: string, exitCode: number): never {
  console.error(`redflag: ${message.replace(/\s*\n\s*/g, ' ').trim()}`);
  process.exit(exitCode);
}

const program = new Command()
  .name('redflag')
  .description('Redflag: the shared registry of suspicious-activity reports')
  .configureOutput({
    // Commander's own errors (unknown option, missing argument ...) as one line, like ours.
    outputError: (message) => fail(message.replace(/^error: /, ''), USAGE_EXIT),
  })
  .exitOverride();

program
  .command('serve')
  .description('run the HTTP service (migrates the database first)')
  .action(async () => {
    const { start } = await import('./server.js');
    await start(loadConfig());
  });

program
  .command('migrate')
  .description('bring the database schema to the latest version')
  .option('--down', 'revert the latest migration instead')
  .option('--json', 'machine-readable output')
  .action(async (options: { down?: boolean; json?: boolean }) => {
    const { databaseOptions, openDatabase } = await import('./db/database.js');
    const { migrateDown, migrateToLatest } = await import('./db/migrate.js');
    const config = loadConfig();
    const database = await openDatabase(databaseOptions(config, 1));
    try {
      const result = options.down ? await migrateDown(database.db) : await migrateToLatest(database.db);
      const names = 'applied' in result ? result.applied : result.reverted;
      if (options.json) console.log(JSON.stringify(result));
      else if (names.length === 0) console.log('Database is up to date.');
      else console.log(`${options.down ? 'Reverted' : 'Applied'}: ${names.join(', ')}`);
    } finally {
      await database.close();
    }
  });

// Options not given are left out rather than sent as undefined.
const runAdmin: AdminRunner = (name, args) => runAdminCommandAnywhere(loadConfig(), name, JSON.parse(JSON.stringify(args)));
registerAdminCommands(program, runAdmin);
registerUserCommands(program, runAdmin);
registerWebhookCommands(program, runAdmin);
registerCryptoCommands(program);
registerSafelistCommands(program, runAdmin);
registerJobsCommands(program, runAdmin);

program
  .command('screen')
  .description(
    'screen a customer file (CSV: label,value[,ref] after a header line) against the registry for a company, with a progress bar; writes <file>.matches.csv and <file>.errors.csv',
  )
  .argument('<file>', 'the CSV file')
  .requiredOption('--company <id>', 'the company screening its customers')
  .option('--out <prefix>', 'where the results go: <prefix>.matches.csv and <prefix>.errors.csv')
  .option('--json', 'machine-readable output')
  .action(async (file: string, options: { company: string; out?: string; json?: boolean }) => {
    const { screenAnywhere } = await import('./modules/screenings/screen.command.js');
    const { job, matchesFile, errorsFile } = await screenAnywhere(loadConfig(), file, options);
    if (options.json) console.log(JSON.stringify({ job, matchesFile, errorsFile }));
    else {
      console.log(
        `Screened ${job.rowsScreened.toLocaleString('en')} rows: ${job.matches.toLocaleString('en')} matched, ` +
          `${job.errors.toLocaleString('en')} rejected. Results: ${matchesFile}, ${errorsFile}`,
      );
    }
  });

try {
  if (process.argv.length <= 2)
    throw new UsageError('missing command: serve, migrate, company, key, operator or user (see redflag --help)');
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT);
  if (error instanceof UsageError) fail(error.message, USAGE_EXIT);
  if (error instanceof AppError && error.details.errors?.length) {
    const reasons = error.details.errors.map((e) => `${OPTION_FOR_FIELD[e.field] ?? e.field} ${e.message}`);
    fail(`${error.message}: ${reasons.join('; ')}`, USAGE_EXIT);
  }
  fail(error instanceof Error ? error.message : String(error), 1);
}
