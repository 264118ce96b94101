import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import type { RedisLink } from '../../redis/redis-link.js';
import { authRoutes } from './auth.routes.js';
import type { PasswordLinksService } from './password-links.service.js';
import { createSessionsService, type SessionsService } from './sessions.service.js';
import { createSignInThrottle } from './sign-in-throttle.js';
import { usersRoutes } from './users.routes.js';
import type { UsersService } from './users.service.js';

/** The window failed sign-ins are counted in. */
const THROTTLE_WINDOW_MS = 15 * 60 * 1000;

export interface People {
  sessions: SessionsService;
  idleMs: number;
}

/** The sign-in and session service, built before the auth hook that asks it about every cookie. */
export function createPeople(deps: {
  db: Kysely<Database>;
  crypto: Crypto;
  config: Config;
  redis: RedisLink | undefined;
  now: () => Date;
  asyncCommits: Pick<AsyncCommits, 'note'>;
}): People {
  const { config, now } = deps;
  const idleMs = config.sessionIdleMinutes * 60_000;
  const throttle = createSignInThrottle(
    { perAccount: config.signInFailuresPerAccount, perAddress: config.signInFailuresPerAddress, windowMs: THROTTLE_WINDOW_MS },
    { redis: deps.redis, now: () => now().getTime() },
  );
  const sessions = createSessionsService({
    db: deps.db,
    keyring: deps.crypto.keyring,
    throttle,
    policy: { idleMs, absoluteMs: config.sessionAbsoluteHours * 3_600_000, totpRequiredForAll: config.totpRequiredForAll },
    now,
    asyncCommits: deps.asyncCommits,
  });
  return { sessions, idleMs };
}

/** Browsers drop a Secure cookie over plain HTTP; only a plain-HTTP localhost service goes without. */
export function cookieIsSecure(publicUrl: string): boolean {
  const url = new URL(publicUrl);
  return !(url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
}

export async function registerUsers(
  app: FastifyInstance,
  deps: { people: People; users: UsersService; passwordLinks: PasswordLinksService; config: Config },
) {
  const { people } = deps;
  await app.register(authRoutes, {
    sessions: people.sessions,
    users: deps.users,
    passwordLinks: deps.passwordLinks,
    cookie: { secure: cookieIsSecure(deps.config.publicUrl) },
  });
  await app.register(usersRoutes, { users: deps.users, passwordLinks: deps.passwordLinks });
}
