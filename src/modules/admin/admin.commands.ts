import type { Kysely } from 'kysely';
import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { CompanyStatus, Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { createCompaniesService } from '../companies/companies.service.js';
import type { KeyEvents } from '../keys/key-events.js';
import { createKeysService } from '../keys/keys.service.js';
import { createOperatorsService } from '../operators/operators.service.js';

/** The services behind every administration path: HTTP admin routes, the control socket, the CLI. */
export function createAdminServices(deps: { db: Kysely<Database>; events: KeyEvents }) {
  return {
    companies: createCompaniesService(deps),
    keys: createKeysService(deps),
    operators: createOperatorsService(deps),
  };
}
export type AdminServices = ReturnType<typeof createAdminServices>;

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Optional = Type.Optional;

function command<S extends TSchema>(args: S, run: (services: AdminServices, args: Static<S>) => Promise<unknown>) {
  return { args, run: run as (services: AdminServices, args: unknown) => Promise<unknown> };
}

/**
 * The `redflag company|key|operator` commands as data: each validates its arguments and calls one
 * service function. The CLI runs them in process when it can open the database, or asks the
 * running server to run them through its control socket — the same code either way.
 */
export const ADMIN_COMMANDS = {
  'company.create': command(
    Type.Object({ name: Type.String(), rateLimitPerMinute: Optional(Type.Integer()) }, { additionalProperties: false }),
    async (s, a) => {
      const r = await s.companies.create({ businessName: a.name, rateLimitPerMinute: a.rateLimitPerMinute });
      return { companyId: r.company.id, keyId: r.key.id, apiKey: r.apiKey, company: r.company };
    },
  ),
  'company.list': command(
    Type.Object(
      {
        page: Optional(Type.Integer()),
        limit: Optional(Type.Integer()),
        status: Optional(Type.Unsafe<CompanyStatus>({ type: 'string', enum: ['active', 'suspended'] })),
      },
      { additionalProperties: false },
    ),
    (s, a) => s.companies.list({ page: a.page ?? 1, limit: a.limit ?? 100, status: a.status }),
  ),
  'company.suspend': command(Type.Object({ companyId: Id }, { additionalProperties: false }), async (s, a) => ({
    company: await s.companies.suspend(a.companyId),
  })),
  'company.activate': command(Type.Object({ companyId: Id }, { additionalProperties: false }), async (s, a) => ({
    company: await s.companies.activate(a.companyId),
  })),
  'key.issue': command(
    Type.Object({ companyId: Id, expiresInDays: Optional(Type.Integer()) }, { additionalProperties: false }),
    async (s, a) => {
      const r = await s.keys.issueForCompany(a.companyId, { expiresInDays: a.expiresInDays });
      return { keyId: r.key.id, apiKey: r.apiKey, key: r.key };
    },
  ),
  'key.list': command(
    Type.Object({ companyId: Optional(Id), operatorId: Optional(Id) }, { additionalProperties: false }),
    async (s, a) => {
      if (a.companyId) return { keys: await s.keys.listForCompany(a.companyId) };
      if (a.operatorId) return { keys: await s.keys.listForOperator(a.operatorId) };
      throw AppError.validation([{ field: 'companyId', message: 'give a company or an operator' }]);
    },
  ),
  'key.revoke': command(Type.Object({ keyId: Id }, { additionalProperties: false }), async (s, a) => ({
    key: await s.keys.revoke(a.keyId),
  })),
  'key.rotate': command(
    Type.Object(
      { keyId: Id, graceHours: Optional(Type.Number()), expiresInDays: Optional(Type.Integer()) },
      { additionalProperties: false },
    ),
    async (s, a) => {
      const r = await s.keys.rotate(a.keyId, { graceHours: a.graceHours, expiresInDays: a.expiresInDays });
      return { keyId: r.key.id, apiKey: r.apiKey, key: r.key, previous: r.previous };
    },
  ),
  'operator.create': command(Type.Object({ name: Type.String() }, { additionalProperties: false }), async (s, a) => {
    const r = await s.operators.create({ name: a.name });
    return { operatorId: r.operator.id, keyId: r.key.id, apiKey: r.apiKey, operator: r.operator };
  }),
};

export type AdminCommandName = keyof typeof ADMIN_COMMANDS;

export function isAdminCommand(name: string): name is AdminCommandName {
  return Object.hasOwn(ADMIN_COMMANDS, name);
}

/**
 * Runs one command and returns its result as plain JSON (dates as ISO strings), exactly what the
 * control socket sends, so the CLI formats one shape whichever way the command ran.
 */
export async function runAdminCommand(services: AdminServices, name: string, args: unknown): Promise<unknown> {
  if (!isAdminCommand(name)) throw AppError.validation([{ field: 'command', message: `unknown command "${name}"` }]);
  const { args: schema, run } = ADMIN_COMMANDS[name];
  if (!Value.Check(schema, args)) {
    const errors = Value.Errors(schema, args).map((e) => ({ field: e.instancePath.replace(/^\//, ''), message: e.message }));
    throw AppError.validation(errors);
  }
  return JSON.parse(JSON.stringify(await run(services, args)));
}
