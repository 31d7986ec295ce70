import { sql } from 'slonik';
import { z } from 'zod';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logger.ts';
import { pruneProcessedEvents, startProcessedEventsPruner } from '../../src/jobs/prune-processed-events.ts';
import { useTestDatabase } from '../support/database.ts';
import { waitUntil } from '../support/eventually.ts';
import { replicaLocks } from '../support/replica.ts';

const db = useTestDatabase();

const NOW = new Date('2026-03-01T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

type State = 'processed' | 'failed' | 'pending';

async function row(id: string, receivedDaysAgo: number, state: State): Promise<void> {
  const receivedAt = daysAgo(receivedDaysAgo);
  await db.pool.query(sql.unsafe`
    INSERT INTO processed_events (notification_id, topic, notification, received_at, processed_at, failed_at)
    VALUES (${id}, 'ping', '{}'::jsonb, ${receivedAt}::timestamptz,
      ${state === 'processed' ? receivedAt : null}::timestamptz, ${state === 'failed' ? receivedAt : null}::timestamptz)`);
}

const ids = () =>
  db.pool.anyFirst(sql.type(z.object({ notification_id: z.string() }))`
    SELECT notification_id FROM processed_events ORDER BY notification_id`);

beforeEach(async () => {
  await db.pool.query(sql.unsafe`TRUNCATE processed_events`);
});

describe('processed_events retention', () => {
  it('deletes finished rows older than 7 days, and keeps newer ones and rows still waiting', async () => {
    await row('old-processed', 8, 'processed');
    await row('old-failed', 30, 'failed');
    await row('old-pending', 9, 'pending');
    await row('recent-processed', 6.9, 'processed');
    await row('recent-failed', 1, 'failed');

    expect(await pruneProcessedEvents(db.pool, NOW, 7)).toBe(2);
    expect(await ids()).toEqual(['old-pending', 'recent-failed', 'recent-processed']);
    // Nothing more to do: a second pass deletes nothing.
    expect(await pruneProcessedEvents(db.pool, NOW, 7)).toBe(0);
  });

  it('forgets pushes recorded before the same horizon', async () => {
    await db.pool.query(sql.unsafe`
      INSERT INTO push_log (source_id, user_id, category, csat, outcome, created_at)
      VALUES ('old-push', 'u', 'chat', false, 'not_configured', ${daysAgo(8)}::timestamptz),
             ('new-push', 'u', 'chat', false, 'not_configured', ${daysAgo(1)}::timestamptz)`);
    await pruneProcessedEvents(db.pool, NOW, 7);
    const left = await db.pool.anyFirst(sql.type(z.object({ source_id: z.string() }))`
      SELECT source_id FROM push_log ORDER BY source_id`);
    expect(left).toEqual(['new-push']);
  });

  it('deletes more rows than one slice holds', async () => {
    await db.pool.query(sql.unsafe`
      INSERT INTO processed_events (notification_id, topic, notification, received_at, processed_at)
      SELECT 'bulk-' || n, 'ping', '{}'::jsonb, now() - interval '10 days', now() - interval '10 days'
      FROM generate_series(1, 12000) AS n`);
    expect(await pruneProcessedEvents(db.pool, new Date(), 7)).toBe(12_000);
    expect(await ids()).toEqual([]);
  });

  it('runs as a job from its start, with two replicas sharing its lock', async () => {
    await db.pool.query(sql.unsafe`
      INSERT INTO processed_events (notification_id, topic, notification, received_at, processed_at)
      VALUES ('job-old', 'ping', '{}'::jsonb, now() - interval '8 days', now() - interval '8 days'),
             ('job-new', 'ping', '{}'::jsonb, now(), now())`);
    const options = { pool: db.pool, logger: createLogger('silent') };
    const locks = [replicaLocks(db.url), replicaLocks(db.url)];
    const pruners = locks.map((l) => startProcessedEventsPruner({ ...options, locks: l }));
    try {
      await waitUntil(async () => !(await ids()).includes('job-old'));
      expect(await ids()).toEqual(['job-new']);
    } finally {
      await Promise.all(pruners.map((pruner) => pruner.stop()));
      await Promise.all(locks.map((l) => l.close()));
    }
  });
});
