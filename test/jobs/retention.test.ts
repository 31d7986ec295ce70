import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import { sql } from 'slonik';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordClick } from '../../src/commands/interactions.ts';
import { KEY_RETENTION_HOURS } from '../../src/db/idempotency-keys.ts';
import { CLICKS_HORIZON, retentionHorizon } from '../../src/db/retention-horizons.ts';
import { createLogger } from '../../src/http/logger.ts';
import { LOCAL_TEMP_DIR } from '../../src/integrations/storage/local-temp.ts';
import { localStorage } from '../../src/integrations/storage/local.ts';
import { pruneOnce, startRetentionJob } from '../../src/jobs/retention.ts';
import { retentionMetrics } from '../../src/jobs/retention-metrics.ts';
import { AGED_TABLES, IDEMPOTENCY_KEYS } from '../../src/jobs/retention-tables.ts';
import { clicksProjection } from '../../src/projections/interactions.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { LogCapture, useRunningApp } from '../support/app.ts';
import { commentAs, userHeaders } from '../support/comments.ts';
import { eventually, waitUntil } from '../support/eventually.ts';
import { postThrough } from '../support/posts.ts';
import { expectRebuildEqualsLive } from '../support/rebuild.ts';
import { replicaLocks } from '../support/replica.ts';

const used = useRunningApp();
const pool = () => used.db.pool;
const silent = createLogger('silent');

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const now = new Date();
const ago = (ms: number, from = now) => new Date(from.getTime() - ms).toISOString();

const count = (table: string) =>
  pool().oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM ${sql.identifier([table])}`);

async function adminLog(action: string, at: string): Promise<void> {
  await pool().query(sql.unsafe`
    INSERT INTO admin_logs (at, action, client_ip, outcome, status_code, correlation_id)
    VALUES (${at}::timestamptz, ${action}, '127.0.0.1', 'success', 200, ${randomUUID()})`);
}
const adminLogActions = () =>
  pool().anyFirst(sql.type(z.object({ action: z.string() }))`SELECT action FROM admin_logs ORDER BY action`);

const channelId = randomUUID();
const buttonId = randomUUID();

/**
 * A click on `postId` at the instant given, projected (or skipped by the projection) before it answers.
 * Each test clicks a post of its own: rows of earlier tests stay, as a rebuild would bring them back.
 */
async function click(postId: string, at: string): Promise<string> {
  const commandId = randomUUID();
  const context = { actor: { type: 'user' as const, id: 'clicker' }, commandId, correlationId: commandId };
  const { store, waiter } = used.running.eventSourcing;
  const position = await recordClick(store, 'clicker', { channelId, postId, buttonId, at }, context);
  expect(await waiter.waitFor(['clicks'], position, 5_000)).toBe(true);
  return at;
}
const clickTimes = (postId: string) =>
  pool().anyFirst(sql.type(z.object({ at: z.string() }))`
    SELECT to_json(clicked_at)#>>'{}' AS at FROM post_button_clicks WHERE post_id = ${postId}
    ORDER BY clicked_at`);
const clickEventsStored = () =>
  pool().oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM events WHERE stream_category = 'userClicks'`);
const iso = (at: string) => new Date(at).toISOString();

beforeEach(async () => {
  await pool().query(sql.unsafe`TRUNCATE admin_logs, idempotency_keys, retention_horizons`);
});

describe('retention by DATA_RETENTION_DAYS', () => {
  it('prunes clicks and admin logs older than N days and keeps the younger ones', async () => {
    const post = randomUUID();
    await adminLog('old', ago(31 * DAY_MS));
    await adminLog('young', ago(29 * DAY_MS));
    await click(post, ago(31 * DAY_MS));
    const young = await click(post, ago(29 * DAY_MS));

    const report = await pruneOnce({ pool: pool(), logger: silent, retentionDays: 30, now });
    expect(report.rows).toEqual({ post_button_clicks: 1, admin_logs: 1, idempotency_keys: 0 });
    expect(await adminLogActions()).toEqual(['young']);
    expect((await clickTimes(post)).map(iso)).toEqual([iso(young)]);
    expect(await retentionHorizon(pool(), CLICKS_HORIZON)).toEqual(new Date(ago(30 * DAY_MS)));
    // A second pass finds nothing more.
    expect((await pruneOnce({ pool: pool(), logger: silent, retentionDays: 30, now })).rows).toEqual({
      post_button_clicks: 0,
      admin_logs: 0,
      idempotency_keys: 0,
    });
  });

  it('prunes nothing of them while DATA_RETENTION_DAYS is unset', async () => {
    const post = randomUUID();
    await adminLog('ancient', ago(3_000 * DAY_MS));
    await click(post, ago(3_000 * DAY_MS));

    const report = await pruneOnce({ pool: pool(), logger: silent, retentionDays: undefined, now });
    expect(report.rows).toEqual({ idempotency_keys: 0 });
    expect(await adminLogActions()).toEqual(['ancient']);
    expect(await clickTimes(post)).toHaveLength(1);
    expect(await retentionHorizon(pool(), CLICKS_HORIZON)).toBeNull();
  });

  it('deletes more rows than one batch holds, a batch per statement', async () => {
    await pool().query(sql.unsafe`
      INSERT INTO admin_logs (at, action, client_ip, outcome, status_code, correlation_id)
      SELECT ${ago(40 * DAY_MS)}::timestamptz, 'bulk', '127.0.0.1', 'success', 200, 'c-' || n
      FROM generate_series(1, 12000) AS n`);
    await adminLog('young', ago(DAY_MS));
    const batches: number[] = [];
    const progress = {
      rowsPruned: (table: string, n: number) => {
        if (table === 'admin_logs') batches.push(n);
      },
      tempFilesRemoved: () => undefined,
    };

    const report = await pruneOnce({ pool: pool(), logger: silent, retentionDays: 30, now, progress });
    expect(report.rows['admin_logs']).toBe(12_000);
    expect(batches).toEqual([5_000, 5_000, 2_000]);
    expect(await adminLogActions()).toEqual(['young']);
  });

  it('counts what it pruned in the registry /metrics serves', async () => {
    await adminLog('old-1', ago(40 * DAY_MS));
    await adminLog('old-2', ago(40 * DAY_MS));
    const registry = new Registry();
    const progress = retentionMetrics(registry);
    const value = async (table: string) =>
      (await registry.getSingleMetric('retention_rows_pruned_total')?.get())?.values.find(
        (v) => v.labels['table'] === table,
      )?.value;
    // Every table's series is there before anything was pruned.
    expect(await value('idempotency_keys')).toBe(0);

    await pruneOnce({ pool: pool(), logger: silent, retentionDays: 30, now, progress });
    expect(await value('admin_logs')).toBe(2);
    expect(await value('idempotency_keys')).toBe(0);
    expect(await registry.metrics()).toContain('retention_rows_pruned_total{table="admin_logs"} 2');
  });
});

describe('event-sourced clicks', () => {
  it('do not come back when the projection is rebuilt after pruning, and late old clicks are skipped', async () => {
    const post = randomUUID();
    const eventsBefore = await clickEventsStored();
    await click(post, ago(45 * DAY_MS));
    await click(post, ago(31 * DAY_MS));
    const young = await click(post, ago(2 * DAY_MS));
    await pruneOnce({ pool: pool(), logger: silent, retentionDays: 30, now });
    expect((await clickTimes(post)).map(iso)).toEqual([iso(young)]);

    // The live runner skips an event from before the horizon (a late or replayed old click).
    await click(post, ago(40 * DAY_MS));
    const later = await click(post, ago(DAY_MS));
    expect((await clickTimes(post)).map(iso)).toEqual([iso(young), iso(later)]);

    // Rebuilt from the whole log, the table equals the pruned live one.
    const [rows] = await expectRebuildEqualsLive(used, clicksProjection);
    expect(rows?.length).toBeGreaterThanOrEqual(2);
    expect((await clickTimes(post)).map(iso)).toEqual([iso(young), iso(later)]);
    // The log itself keeps every click (decision 028).
    expect(await clickEventsStored()).toBe(eventsBefore + 5);
  });
});

describe('what is never pruned', () => {
  let admin = '';
  beforeAll(async () => {
    admin = await loginToken(used.running.url, await createTestAdmin(pool(), 'owner'));
  });
  afterEach(async () => {
    // The horizon of this test lies in the future: later tests must project their clicks.
    await pool().query(sql.unsafe`TRUNCATE retention_horizons`);
  });

  it('touches only clicks, admin logs and idempotency keys', () => {
    // A table joins this list by a decision, never by accident: views, reactions, comments, CSAT ratings
    // and complaints are kept for good (the spec).
    expect([...AGED_TABLES, IDEMPOTENCY_KEYS].map((t) => t.name)).toEqual([
      'post_button_clicks',
      'admin_logs',
      'idempotency_keys',
    ]);
  });

  it('keeps views, reactions and comments however old, and the click events', async () => {
    const url = used.running.url;
    const made = await adminCall(url, admin, 'POST', '/admin/channels', {
      title: 'Kept',
      allowedReactions: ['👍'],
    });
    const channel = (made.body as { id: string }).id;
    const draft = { text: 'kept', buttons: [{ label: 'More', url: 'https://example.com/more' }] };
    const post = await postThrough(url, admin, channel, ['publish'], draft);
    const reader = { ...userHeaders('reader'), 'content-type': 'application/json' };
    const base = `${url}/api/channel/${channel}`;
    expect(
      (
        await fetch(`${base}/views`, {
          method: 'POST',
          headers: reader,
          body: JSON.stringify({ postIds: [post] }),
        })
      ).status,
    ).toBe(204);
    const reacted = await fetch(`${base}/posts/${post}/reactions/${encodeURIComponent('👍')}`, {
      method: 'PUT',
      headers: userHeaders('reader'),
    });
    expect(reacted.status).toBeLessThan(300);
    expect((await commentAs(url, channel, post)).status).toBe(201);
    const { buttons } = (await fetch(`${base}/posts/${post}`, { headers: reader }).then((r) => r.json())) as {
      buttons: { id: string }[];
    };
    const clicked = await fetch(`${base}/posts/${post}/buttons/${buttons[0]?.id ?? ''}/click`, {
      method: 'POST',
      headers: userHeaders('reader'),
    });
    expect(clicked.status).toBe(200);

    const kept = [
      'post_views',
      'post_reactions',
      'post_reaction_counts',
      'channel_comments',
      'post_comment_counts',
    ];
    const counts = () => Promise.all(kept.map(count));
    const before = await eventually(counts, (n) => n.every((c) => c > 0));
    await eventually(
      () => count('post_button_clicks'),
      (n) => n > 0,
    );
    const clickEvents = await clickEventsStored();

    // Ten years on, with a retention of one day: everything prunable is old.
    const later = new Date(now.getTime() + 3_650 * DAY_MS);
    await pruneOnce({ pool: pool(), logger: silent, retentionDays: 1, now: later });
    expect(await count('post_button_clicks')).toBe(0);
    expect(await count('admin_logs')).toBe(0);
    expect(await counts()).toEqual(before);
    expect(await clickEventsStored()).toBe(clickEvents);
  });
});

describe('housekeeping that needs no DATA_RETENTION_DAYS', () => {
  it('forgets idempotency keys past their window (decision 009) and keeps the others', async () => {
    // The window the idempotency plugin's claims use, from the one module both import.
    const past = ago((KEY_RETENTION_HOURS + 1) * HOUR_MS);
    const within = ago((KEY_RETENTION_HOURS - 1) * HOUR_MS);
    await pool().query(sql.unsafe`
      INSERT INTO idempotency_keys (caller, key, request_fingerprint, status_code, response, created_at)
      VALUES ('alice', 'expired', 'f', 201, '{}', ${past}::timestamptz),
             ('alice', 'abandoned', 'f', NULL, NULL, ${past}::timestamptz),
             ('alice', 'current', 'f', 201, '{}', ${within}::timestamptz)`);

    const report = await pruneOnce({ pool: pool(), logger: silent, retentionDays: undefined, now });
    expect(report.rows['idempotency_keys']).toBe(2);
    expect(
      await pool().anyFirst(sql.type(z.object({ key: z.string() }))`SELECT key FROM idempotency_keys`),
    ).toEqual(['current']);
  });

  it('removes temporary upload files a crashed write left, and keeps fresh ones and stored objects', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-retention-'));
    try {
      const storage = localStorage(dir);
      await storage.put('kept', new PassThrough().end('stored'), { contentType: 'text/plain' });
      const temp = join(dir, LOCAL_TEMP_DIR);
      await mkdir(temp, { recursive: true });
      const twoHoursAgo = new Date(now.getTime() - 2 * HOUR_MS);
      await writeFile(join(temp, 'crashed'), 'partial');
      await utimes(join(temp, 'crashed'), twoHoursAgo, twoHoursAgo);
      await utimes(join(dir, 'kept.object'), twoHoursAgo, twoHoursAgo);
      // A write in progress: its temporary file is where the sweep looks, and fresh.
      const body = new PassThrough();
      const writing = storage.put('streaming', body, { contentType: 'text/plain' });
      body.write('first bytes');
      await waitUntil(async () => (await readdir(temp)).length === 2);

      const report = await pruneOnce({
        pool: pool(),
        logger: silent,
        retentionDays: undefined,
        now,
        uploadDir: dir,
      });
      expect(report.tempFiles).toBe(1);
      expect(await readdir(temp)).toHaveLength(1);
      body.end(' and the rest');
      await writing;
      expect(await readdir(temp)).toEqual([]);
      expect((await storage.head('kept'))?.size).toBe(6);
      expect((await storage.head('streaming'))?.size).toBe(24);
      // No temporary folder at all (nothing was ever uploaded) is no error.
      await rm(temp, { recursive: true });
      expect(
        (await pruneOnce({ pool: pool(), logger: silent, retentionDays: undefined, now, uploadDir: dir }))
          .tempFiles,
      ).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the job', () => {
  it('runs once across replicas: two jobs started together make one pass, and the other takes over', async () => {
    await adminLog('old', ago(40 * DAY_MS));
    const captures = [new LogCapture(), new LogCapture()];
    const passes = () =>
      captures.map((c) => c.lines.filter((l) => l.includes('retention: pass done')).length);
    const registries = [new Registry(), new Registry()];
    const locks = captures.map(() => replicaLocks(used.db.url, 1_000));
    const jobs = captures.map((capture, i) =>
      startRetentionJob({
        pool: pool(),
        locks: locks[i] ?? replicaLocks(used.db.url),
        logger: createLogger('info', capture),
        registry: registries[i],
        retentionDays: 30,
        firstRunDelayMs: 0,
      }),
    );
    try {
      await waitUntil(() => passes().some((n) => n > 0));
      expect(await adminLogActions()).toEqual([]);
      // Past the lock's retry interval (1 s), the other job still waits for the lock.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const first = passes();
      expect(first.reduce((a, b) => a + b)).toBe(1);
      const leader = first.indexOf(1);
      const pruned = await registries[leader]?.getSingleMetricAsString('retention_rows_pruned_total');
      expect(pruned).toContain('retention_rows_pruned_total{table="admin_logs"} 1');

      await jobs[leader]?.stop();
      await adminLog('old-again', ago(40 * DAY_MS));
      await waitUntil(() => passes()[1 - leader] === 1);
      expect(await adminLogActions()).toEqual([]);
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
      await Promise.all(locks.map((l) => l.close()));
    }
  });
});
