import { beforeAll, describe, expect, it } from 'vitest';
import { postStream } from '../../src/events/posts.ts';
import { createLogger } from '../../src/http/logger.ts';
import { publishDuePosts, startScheduledPublisher } from '../../src/jobs/publish-scheduled.ts';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { useRunningApp } from '../support/app.ts';
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

/** A post scheduled `inMs` from now (the API refuses the past, so "overdue" is made by waiting). */
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
  it('publishes a due post once even when several runners pass at the same moment, and nothing early', async () => {
    const early = await scheduledPost(3_600_000);
    const post = await scheduledPost(300);
    await new Promise((r) => setTimeout(r, 400));
    const deps = { pool: used.db.pool, store: used.running.eventSourcing.store };
    const found = await Promise.all([1, 2, 3].map(() => publishDuePosts(deps, new Date())));
    // Each pass may or may not still see the post as due (the read table follows the log); what counts
    // is that it was published once.
    expect(found).toContain(1);
    const events = await publishedEvents(post.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ by: 'schedule', notify: true, channelId });
    expect(events[0]?.metadata).toMatchObject({ actor: { type: 'system', id: 'scheduler' } });
    expect(await publishedEvents(early.id)).toHaveLength(0);
  });

  it('with two services running, publishes within seconds of the due time, once', async () => {
    const logger = createLogger('silent');
    const options = {
      pool: used.db.pool,
      store: used.running.eventSourcing.store,
      logger,
      intervalMs: 200,
    };
    const locks = [replicaLocks(used.db.url), replicaLocks(used.db.url)];
    const runners = locks.map((l) => startScheduledPublisher({ ...options, locks: l }));
    try {
      const post = await scheduledPost(500);
      const deadline = post.publishAt.getTime() + 5_000;
      while ((await status(post.id)) !== 'published' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await status(post.id)).toBe('published');
      expect(await publishedEvents(post.id)).toHaveLength(1);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
      await Promise.all(locks.map((l) => l.close()));
    }
  });

  it('publishes at its start what fell due while no service ran', async () => {
    const post = await scheduledPost(200);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await status(post.id)).toBe('scheduled');
    const locks = replicaLocks(used.db.url);
    const runner = startScheduledPublisher({
      pool: used.db.pool,
      store: used.running.eventSourcing.store,
      locks,
      logger: createLogger('silent'),
    });
    try {
      const deadline = Date.now() + 5_000;
      while ((await status(post.id)) !== 'published' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await status(post.id)).toBe('published');
    } finally {
      await runner.stop();
      await locks.close();
    }
  });
});
