import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ok } from '../../http/envelope.js';
import type { RoutesPlugin } from '../../http/types.js';
import { listBanks } from './banks.repository.js';
import { BankListResponse } from './banks.schemas.js';

const MESSAGE = 'Banks fetched successfully';

interface BankList {
  etag: string;
  body: ReturnType<typeof ok<{ entity: Array<{ id: string; name: string; slug: string; code: string }> }>>;
}

async function loadBankList(db: Kysely<Database>): Promise<BankList> {
  const entity = (await listBanks(db)).map(({ id, name, slug, code }) => ({ id, name, slug, code }));
  const body = ok({ entity }, MESSAGE);
  const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
  return { etag, body };
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** The bank list changes only with a release (it is loaded by migration), so it is read once. */
export const bankRoutes: RoutesPlugin<{ db: Kysely<Database> }> = async (app, { db }) => {
  let list: Promise<BankList> | undefined;

  app.get(
    '/api/v1/meta-data/banks',
    {
      schema: {
        tags: ['banks'],
        summary: 'List banks',
        description: 'Nigerian banks and other financial institutions; the slug formats account identifiers. No key needed.',
        response: { 200: BankListResponse, 304: { type: 'null', description: 'Not modified (If-None-Match)' } },
      },
    },
    async (request, reply) => {
      list ??= loadBankList(db).catch((error: unknown) => {
        list = undefined;
        throw error;
      });
      const { etag, body } = await list;
      reply.header('etag', etag).header('cache-control', 'public, max-age=3600');
      if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return body;
    },
  );
};
