import type { FastifyRequest } from 'fastify';
import { operatorOf } from '../../http/auth.js';

/** The operator who moderates (public reports, review requests), as the audit trail records them. */
export interface Moderator {
  operatorId: string;
  keyId: string | null;
  userId: string | null;
  requestId: string;
}

export function moderatorOf(request: FastifyRequest): Moderator {
  const { operatorId, keyId, user } = operatorOf(request);
  return { operatorId, keyId, userId: user?.userId ?? null, requestId: String(request.id) };
}
