import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { allPages, type SupportCache } from '../chat/support-cache.ts';
import { type LeaderLocks, runAsLeader } from '../db/leader-lock.ts';
import type { IntercomClient } from '../integrations/intercom/client.ts';
import { awaitStop, sleep } from '../lib/abortable.ts';

type SearchCalls = Pick<IntercomClient, 'searchConversationsUpdatedSince' | 'searchTicketsUpdatedSince'>;

export interface SupportReconcilerOptions {
  readonly intercom: SearchCalls;
  readonly cache: Pick<SupportCache, 'invalidate'>;
  /** This process's leader locks (one connection for every loop). */
  readonly locks: LeaderLocks;
  readonly logger: Logger;
  /** How often Intercom is asked what changed (default a minute). */
  readonly intervalMs?: number;
  /** How far back each look reaches before the last one began (default 5 min: search lags behind writes). */
  readonly overlapMs?: number;
  readonly now?: () => number;
}

export interface SupportReconciler {
  stop(): Promise<void>;
}

/** Pages of one search read at most per look; the next look reaches back over what this one missed. */
const MAX_PAGES = 20;

/** A record as the reconciler last saw it: its id and when Intercom says it changed. */
const seenKey = (kind: string, id: string, updatedAt: number) => `${kind}:${id}:${updatedAt}`;

/**
 * The safety net for webhooks that never came (decision 022). The read cache trusts an entry until a
 * webhook or the user's own write invalidates it, or its long TTL ends; so that a lost webhook does not
 * leave a conversation stale for that long, one replica asks Intercom every minute which conversations
 * and tickets changed since a little before its last look (two searches, whatever the number of users)
 * and invalidates each one it has not seen at that `updated_at` yet. Its cost is a few calls a minute,
 * not one per polling user. Every change found is invalidated once, even one whose webhook came: this
 * replica's copy of a conversation showing the change proves nothing about the contact's list or another
 * replica's copy, which a lost webhook leaves stale; the price is one read again per change.
 */
export function startSupportReconciler(options: SupportReconcilerOptions): SupportReconciler {
  const intervalMs = options.intervalMs ?? 60_000;
  const overlapMs = options.overlapMs ?? 300_000;
  const now = options.now ?? Date.now;
  const { intercom, cache, logger } = options;
  // What was invalidated already: a record changed once is found by several overlapping looks.
  const seen = new LRUCache<string, true>({ max: 100_000 });
  let lastStart = now();

  const look = async () => {
    const start = now();
    const since = Math.floor((lastStart - overlapMs) / 1000);
    const [conversations, tickets] = await Promise.all([
      allPages((after) => intercom.searchConversationsUpdatedSince(since, after), MAX_PAGES),
      allPages((after) => intercom.searchTicketsUpdatedSince(since, after), MAX_PAGES),
    ]);
    let invalidated = 0;
    for (const c of conversations) {
      const key = seenKey('conversation', c.id, c.updated_at);
      if (seen.has(key)) continue;
      seen.set(key, true);
      await cache.invalidate({ contactIds: c.contacts, conversationId: c.id });
      invalidated += 1;
    }
    for (const t of tickets) {
      const key = seenKey('ticket', t.id, t.updated_at);
      if (seen.has(key)) continue;
      seen.set(key, true);
      await cache.invalidate({ contactIds: t.contacts, ticketId: t.id });
      invalidated += 1;
    }
    lastStart = start;
    if (invalidated > 0) logger.debug({ invalidated }, 'support reconcile: changed records invalidated');
  };

  const stopping = new AbortController();
  const loop = runAsLeader(
    {
      locks: options.locks,
      key: 'job:support-reconcile',
      logger,
      kind: 'job',
      name: 'support-reconcile',
    },
    stopping.signal,
    async (leading) => {
      await sleep(intervalMs, leading);
      if (leading.aborted) return;
      try {
        await look();
      } catch (error) {
        logger.warn({ err: error }, 'support reconcile: cannot ask Intercom; the next look reaches back');
      }
    },
  );
  return {
    stop: async () => {
      stopping.abort();
      await awaitStop(loop, logger, 'the support reconciler');
    },
  };
}
