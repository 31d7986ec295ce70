import type { FastifyReply } from 'fastify';
import type { Freshness } from '../chat/conversations.ts';

/**
 * A provider read answered from the last copy because Intercom could not be asked says so (decision 020):
 * `X-Provider-Stale: true`, and `Age` in seconds since Intercom gave that copy.
 */
export function markFreshness(reply: FastifyReply, freshness: Freshness): void {
  if (!freshness.stale) return;
  const age = Math.max(0, Math.floor((Date.now() - freshness.fetchedAt) / 1000));
  void reply.headers({ 'x-provider-stale': 'true', age: String(age) });
}
