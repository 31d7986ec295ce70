import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../commands/handler.ts';
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
