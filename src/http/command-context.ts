import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../commands/handler.ts';
import { adminOf } from './plugins/admin-auth.ts';
import { userOf } from './plugins/auth.ts';
import { commandIdOf } from './plugins/idempotency.ts';

/** Who is acting and under which ids, for a command sent by a client session. */
export function userCommandContext(request: FastifyRequest): CommandContext {
  return {
    actor: { type: 'user', id: userOf(request) },
    commandId: commandIdOf(request),
    correlationId: request.id,
    causationId: null,
  };
}

/**
 * Who is acting and under which ids, for a command sent by an admin. The correlation id is the request
 * id, which the request's audit entry carries too, so the two can be joined.
 */
export function adminCommandContext(request: FastifyRequest): CommandContext {
  return {
    actor: { type: 'admin', id: adminOf(request).id },
    commandId: commandIdOf(request),
    correlationId: request.id,
    causationId: null,
  };
}
