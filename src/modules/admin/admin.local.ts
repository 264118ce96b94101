import type { Config } from '../../config.js';
import { databaseOptions, openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { openRedisLink } from '../../redis/redis-link.js';
import { createKeyEvents } from '../keys/key-events.js';
import { createMailer } from '../users/mailer.js';
import { type AdminCommandName, createAdminServices, runAdminCommand } from './admin.commands.js';

/** The CLI's own database session: open, migrate, run one command, close. */
export async function runInProcess(config: Config, name: AdminCommandName, args: object): Promise<unknown> {
  const database = await openDatabase(databaseOptions(config, 1));
  try {
    await migrateToLatest(database.db);
    // Running servers learn about a revocation at once through Redis; without it, within 5 s anyway.
    const redis = config.redisUrl
      ? openRedisLink(config.redisUrl, {
          prefix: config.redisPrefix,
          log: {
            info() {},
            warn() {
              process.stderr.write('redflag: warning: Redis unreachable; running servers see the change within 5 s\n');
            },
          },
        })
      : undefined;
    await redis?.waitUntilReady(2_000);
    const events = createKeyEvents({ redis });
    const mailer = createMailer(config.smtpUrl, config.mailFrom);
    try {
      // Only the safelist needs the blind-index key: other commands work without the root key.
      const crypto = name.startsWith('safelist.')
        ? await (await import('../../crypto/load-crypto.js')).loadCrypto({ db: database.db, config, engine: database.engine })
        : undefined;
      return await runAdminCommand(createAdminServices({ db: database.db, events, config, mailer, crypto }), name, args);
    } finally {
      mailer?.close();
      await events.close();
      await redis?.close();
    }
  } finally {
    await database.close();
  }
}
