import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { sql } from 'slonik';
import { z } from 'zod';
import { awaitStop, sleep } from '../lib/abortable.ts';
import { handlePostCommand } from '../commands/posts.ts';
import { type LeaderLocks, runAsLeader } from '../db/leader-lock.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EventStore } from '../events/store/port.ts';

export interface ScheduledPublisherOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  /** This process's leader locks (one connection for every loop). */
  readonly locks: LeaderLocks;
  readonly logger: Logger;
  /** How often due posts are looked for; well inside the 5 s the issue allows. */
  readonly intervalMs?: number;
  readonly now?: () => Date;
}

const BATCH = 100;
const due = z.object({ id: z.string(), publish_at: z.coerce.date() });

/**
 * Publishes every scheduled post whose time has come, once. Safe to run from several places at once:
 * the command id (and so the event ids) comes from the post and its schedule, and the decider publishes
 * only a post that is still scheduled, so a second runner appends nothing. Answers how many due posts it
 * found (another runner may have published some of them first).
 */
export async function publishDuePosts(
  deps: Pick<ScheduledPublisherOptions, 'pool' | 'store'>,
  now: Date,
): Promise<number> {
  const posts = await deps.pool.any(sql.type(due)`
    SELECT id, publish_at FROM channel_posts
    WHERE status = 'scheduled' AND publish_at <= ${now.toISOString()}::timestamptz
    ORDER BY publish_at LIMIT ${BATCH}`);
  for (const post of posts) {
    await handlePostCommand(
      deps.store,
      post.id,
      { type: 'publishDue', at: now.toISOString() },
      {
        actor: { type: 'system', id: 'scheduler' },
        commandId: `publish-due:${post.id}:${post.publish_at.toISOString()}`,
        correlationId: randomUUID(),
        causationId: null,
      },
    );
  }
  return posts.length;
}

export interface ScheduledPublisher {
  stop(): Promise<void>;
}

/**
 * The schedule job: on the replica holding its lock, every `intervalMs` (1 s by default) publishes what
 * fell due, including posts that fell due while the service was down (the first pass after a start).
 */
export function startScheduledPublisher(options: ScheduledPublisherOptions): ScheduledPublisher {
  const intervalMs = options.intervalMs ?? 1_000;
  const now = options.now ?? (() => new Date());
  const stopping = new AbortController();
  const loop = runAsLeader(
    {
      locks: options.locks,
      key: 'job:publish-scheduled',
      logger: options.logger,
      kind: 'job',
      name: 'publish-scheduled',
    },
    stopping.signal,
    async (leading) => {
      const due = await publishDuePosts(options, now());
      if (due > 0) options.logger.info({ due }, 'scheduled posts published');
      await sleep(intervalMs, leading);
    },
  );
  return {
    stop: async () => {
      stopping.abort();
      await awaitStop(loop, options.logger, 'the scheduled-post publisher');
    },
  };
}
