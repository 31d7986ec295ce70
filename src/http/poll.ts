import { weakEtag } from '../lib/digest.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesIfNoneMatch } from './if-none-match.ts';

/**
 * Answers a poll (API.md): an ETag over exactly what this caller would get, so any change in it (an
 * edit, a count, their own reaction) changes the tag; 304 with no body when the client has it already;
 * and `X-Poll-Interval` so the server can slow clients down (`PollPace`, longer while overloaded).
 */
export async function replyToPoll(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  pollIntervalMs: number,
): Promise<FastifyReply> {
  const etag = weakEtag(JSON.stringify(body));
  if (notModified(request, reply, etag, pollIntervalMs)) return reply.code(304).send();
  return reply.send(body);
}

/**
 * The same for a caller that knows the tag without the body (a cache): the body is built and
 * serialised only for a 200. It is sent as it is, skipping the response schema's check, so it must be
 * built from data already parsed to that shape.
 */
export async function replyToTaggedPoll(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: { readonly etag: string; json(): string | Buffer },
  pollIntervalMs: number,
): Promise<FastifyReply> {
  if (notModified(request, reply, answer.etag, pollIntervalMs)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(answer.json());
}

/** Sets the poll headers; true when the client already holds this version. */
function notModified(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
  pollIntervalMs: number,
): boolean {
  void reply.headers({
    etag,
    'x-poll-interval': String(request.server.services.pace.interval(pollIntervalMs)),
    'cache-control': 'private, no-cache',
  });
  return matchesIfNoneMatch(request.headers['if-none-match'], etag);
}
