import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers a poll (API.md): an ETag over exactly what this caller would get, so any change in it (an
 * edit, a count, their own reaction) changes the tag; 304 with no body when the client has it already;
 * and `X-Poll-Interval` so the server can slow clients down.
 */
export async function replyToPoll(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  pollIntervalMs: number,
): Promise<FastifyReply> {
  const etag = `W/"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
  void reply.headers({
    etag,
    'x-poll-interval': String(pollIntervalMs),
    'cache-control': 'private, no-cache',
  });
  const known = request.headers['if-none-match'];
  if (known !== undefined && known.split(',').some((tag) => tag.trim() === etag)) {
    return reply.code(304).send();
  }
  return reply.send(body);
}
