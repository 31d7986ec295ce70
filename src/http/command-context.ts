import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../commands/handler.ts';
import { userOf } from './plugins/auth.ts';

/** Who is acting and under which ids, for a command sent by a client session. */
export function userCommandContext(request: FastifyRequest): CommandContext {
  return {
    actor: { type: 'user', id: userOf(request) },
    commandId: request.commandId,
    correlationId: request.id,
    causationId: null,
  };
}
