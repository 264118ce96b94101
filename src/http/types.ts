import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginOptions } from 'fastify';

/** A feature's routes: a Fastify plugin with TypeBox-typed schemas, given its dependencies. */
export type RoutesPlugin<Deps extends FastifyPluginOptions> = FastifyPluginAsyncTypebox<Deps>;
