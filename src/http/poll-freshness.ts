import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Freshness } from '../chat/conversations.ts';
import { replyToPoll, replyToTaggedPoll } from './poll.ts';

/**
 * A provider read answered from the last copy because Intercom could not be asked says so (decision 020):
 * `X-Provider-Stale: true`, and `Age` in seconds since Intercom gave that copy.
 */
function markFreshness(reply: FastifyReply, freshness: Freshness): void {
  if (!freshness.stale) return;
  const age = Math.max(0, Math.floor((Date.now() - freshness.fetchedAt) / 1000));
  void reply.headers({ 'x-provider-stale': 'true', age: String(age) });
}

/** A poll of what Intercom holds, built per request: how fresh it is, then the poll's answer. */
export async function replyToProviderPoll(
  request: FastifyRequest,
  reply: FastifyReply,
  { body, freshness }: { readonly body: unknown; readonly freshness: Freshness },
  pollIntervalMs: number,
): Promise<FastifyReply> {
  markFreshness(reply, freshness);
  return replyToPoll(request, reply, body, pollIntervalMs);
}

/** The same for a cached record, whose tag and JSON were made once when it was read. */
export async function replyToProviderRecord(
  request: FastifyRequest,
  reply: FastifyReply,
  found: { readonly record: { readonly etag: string; readonly json: string }; readonly freshness: Freshness },
  pollIntervalMs: number,
): Promise<FastifyReply> {
  markFreshness(reply, found.freshness);
  const { etag, json } = found.record;
  return replyToTaggedPoll(request, reply, { etag, json: () => json }, pollIntervalMs);
}
