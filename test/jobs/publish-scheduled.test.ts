import { beforeAll, describe, expect, it } from 'vitest';
import { postStream } from '../../src/events/posts.ts';
import { createLogger } from '../../src/http/logger.ts';
import { publishDuePosts, startScheduledPublisher } from '../../src/jobs/publish-scheduled.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { useRunningApp } from '../support/app.ts';
import { waitUntil } from '../support/eventually.ts';
import { replicaLocks } from '../support/replica.ts';

const used = useRunningApp();
const url = () => used.running.url;
let token = '';
let channelId = '';
beforeAll(async () => {
  token = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
  channelId = (
    (await adminCall(url(), token, 'POST', '/admin/channels', { title: 'Scheduled' })).body as { id: string }
  ).id;
});

/** A post scheduled `inMs` from now (the API refuses the past: "due" is the job's clock moved on). */
async function scheduledPost(inMs: number, notify = true): Promise<{ id: string; publishAt: Date }> {
  const made = await adminCall(url(), token, 'POST', `/admin/channels/${channelId}/posts`, { text: 'Soon' });
  const id = (made.body as { id: string }).id;
  const publishAt = new Date(Date.now() + inMs);
  const answer = await adminCall(url(), token, 'POST', `/admin/posts/${id}/schedule`, {
    publishAt: publishAt.toISOString(),
    notify,
  });
  expect(answer.status).toBe(200);
  return { id, publishAt };
}
const publishedEvents = async (id: string) =>
  (await used.running.eventSourcing.store.readStream(postStream(id))).filter(
    (e) => e.type === 'postPublished',
  );
const status = async (id: string) =>
  (
    (await adminCall(url(), token, 'GET', `/admin/channels/${channelId}/posts?limit=100`)).body as {
      items: { id: string; status: string }[];
    }
  ).items.find((p) => p.id === id)?.status;

describe('the schedule job', () => {
  const HOUR = 3_600_000;

  it('publishes a due post once even when several runners pass at the same moment, and nothing early', async () => {
    const post = await scheduledPost(HOUR);
    const early = await scheduledPost(2 * HOUR);
    const deps = { pool: used.db.pool, store: used.running.eventSourcing.store };
    // A millisecond before its time, a pass finds nothing.
    expect(await publishDuePosts(deps, new Date(post.publishAt.getTime() - 1))).toBe(0);
    expect(await publishedEvents(post.id)).toHaveLength(0);
    const found = await Promise.all([1, 2, 3].map(() => publishDuePosts(deps, post.publishAt)));
    // Each pass may or may not still see the post as due (the read table follows the log); what counts
    // is that it was published once.
    expect(found).toContain(1);
    const events = await publishedEvents(post.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ by: 'schedule', notify: true, channelId });
    expect(events[0]?.metadata).toMatchObject({ actor: { type: 'system', id: 'scheduler' } });
    expect(await publishedEvents(early.id)).toHaveLength(0);
  });

  it('with two services running, publishes a post once when its time comes, not before', async () => {
    const post = await scheduledPost(HOUR);
    // The services' clock, which the test moves; each pass of the leader reads it once.
    let at = Date.now();
    let passes = 0;
    const now = () => {
      passes += 1;
      return new Date(at);
    };
    const logger = createLogger('silent');
    const options = {
      pool: used.db.pool,
      store: used.running.eventSourcing.store,
      logger,
      intervalMs: 50,
      now,
    };
    const locks = [replicaLocks(used.db.url), replicaLocks(used.db.url)];
    const runners = locks.map((l) => startScheduledPublisher({ ...options, locks: l }));
    try {
      await waitUntil(() => passes >= 3);
      expect(await status(post.id)).toBe('scheduled');
      at = post.publishAt.getTime();
      await waitUntil(async () => (await status(post.id)) === 'published');
      const after = passes;
      await waitUntil(() => passes >= after + 3);
      expect(await publishedEvents(post.id)).toHaveLength(1);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
      await Promise.all(locks.map((l) => l.close()));
    }
  });

  it('publishes at its start what fell due while no service ran', async () => {
    const post = await scheduledPost(HOUR);
    expect(await status(post.id)).toBe('scheduled');
    const locks = replicaLocks(used.db.url);
    // It starts an hour and a second later.
    const runner = startScheduledPublisher({
      pool: used.db.pool,
      store: used.running.eventSourcing.store,
      locks,
      logger: createLogger('silent'),
      now: () => new Date(post.publishAt.getTime() + 1_000),
    });
    try {
      await waitUntil(async () => (await status(post.id)) === 'published');
      expect(await publishedEvents(post.id)).toHaveLength(1);
    } finally {
      await runner.stop();
      await locks.close();
    }
  });
});
