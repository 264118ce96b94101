import { Command, CommanderError } from 'commander';
import { loadConfig } from './config.js';
import { registerCryptoCommands } from './crypto/crypto.command.js';
import { openDatabase } from './db/database.js';
import { migrateDown, migrateToLatest } from './db/migrate.js';
import { exitWithError, serve } from './server.js';

const program = new Command()
  .name('redflag')
  .description('Redflag: the shared registry of suspicious-activity reports')
  .showHelpAfterError()
  .exitOverride();

program
  .command('serve')
  .description('run the HTTP service (migrates the database first)')
  .action(async () => {
    await serve(loadConfig());
  });

program
  .command('migrate')
  .description('bring the database schema to the latest version')
  .option('--down', 'revert the latest migration instead')
  .option('--json', 'machine-readable output')
  .action(async (options: { down?: boolean; json?: boolean }) => {
    const config = loadConfig();
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      databaseSchema: config.databaseSchema,
      dataDir: config.dataDir,
      poolSize: 1,
    });
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

registerCryptoCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  exitWithError(error);
}
