import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { leaseSize } from '../../src/integrations/rate-limiters/leased-counts.ts';
import { allProjections } from '../../src/projections/index.ts';
import { rebuildProjection } from '../../src/projections/rebuild.ts';
import { adminCall, createTestAdmin, loginToken, postLogin } from '../support/admin.ts';
import { TEST_SECRETS } from '../support/app.ts';
import { commentAs, userHeaders } from '../support/comments.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { eventually, waitUntil } from '../support/eventually.ts';
import { postThrough } from '../support/posts.ts';
import { connectTestRedis } from '../support/redis.ts';
import { serviceEventStore } from '../support/service-store.ts';
import {
  type RoundRobinProxy,
  type ServiceProcess,
  type StandaloneSandbox,
  startRoundRobinProxy,
  startServiceProcess,
  startStandaloneSandbox,
  startTcpRelay,
  type TcpRelay,
} from '../support/scale-out.ts';
import { type StatementCounter, startStatementCounter } from '../support/statement-counter.ts';

// Several processes behave as one service (docs/scale-out.md): three `api` processes behind a round-robin
// proxy and two `worker` processes, real processes of `node src/main.ts` on one PostgreSQL and one Redis,
// with the Intercom sandbox in a process of its own. api-2's database connections go through a statement
// counter; api-3 reaches Redis through a relay the test can cut.

const redis = await connectTestRedis('the scale-out suite');

const RATE_LIMIT = 200;
const BUDGET = 40;

describe.skipIf(redis === null)('several processes, one service', () => {
  let db: TestDatabase;
  let sandbox: StandaloneSandbox;
  let proxy: RoundRobinProxy;
  let counter: StatementCounter;
  let relay: TcpRelay;
  const apis: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  let admin = '';
  let channelId = '';

  const redisUrl = process.env.REDIS_URL ?? '';
  const api = (i: number) => {
    const found = apis[i];
    if (!found) throw new Error(`no api-${i + 1}`);
    return found;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    counter = await startStatementCounter(db.url);
    relay = await startTcpRelay(Number(new URL(redisUrl).port || 6379));
    proxy = await startRoundRobinProxy(() => apis.map((a) => a.port));
    sandbox = await startStandaloneSandbox(`${proxy.url}/webhooks/support`);
    const shared = {
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl,
      ...sandbox.settings,
      TRUST_PROXY_HOPS: '1',
      API_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      SUPPORT_CALLS_PER_WINDOW: String(BUDGET),
      // The comment poll's own pace stays 1: the machine is busy with five processes and a test.
      PUSH_ONLINE_WINDOW_MS: '8000',
    };
    const relayedRedis = `redis://127.0.0.1:${relay.port}`;
    const started = await Promise.all([
      startServiceProcess('api-1', { ...shared, ROLES: 'api' }),
      startServiceProcess('api-2', { ...shared, ROLES: 'api', DATABASE_URL: counter.url }),
      startServiceProcess('api-3', { ...shared, ROLES: 'api', REDIS_URL: relayedRedis }),
      startServiceProcess('worker-1', { ...shared, ROLES: 'worker' }),
      startServiceProcess('worker-2', { ...shared, ROLES: 'worker' }),
    ]);
    apis.push(...started.slice(0, 3));
    workers.push(...started.slice(3));
    const owner = await createTestAdmin(db.pool, 'owner');
    admin = await loginToken(proxy.url, owner);
    const made = await adminCall(proxy.url, admin, 'POST', '/admin/channels', {
      title: 'Scale-out',
      allowedReactions: ['👍'],
      commentRate: { intervalSeconds: 30, burst: 3 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    channelId = z.object({ id: z.string() }).parse(made.body).id;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    await proxy.close();
    await sandbox.stop();
    await relay.close();
    await counter.close();
    await db.drop();
    await redis?.quit();
  }, 60_000);

  const get = (base: string, path: string, user: string, etag?: string) =>
    fetch(`${base}${path}`, {
      headers: { ...userHeaders(user), ...(etag ? { 'if-none-match': etag } : {}) },
    });
  const post = (base: string, path: string, user: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...userHeaders(user), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Every row of a projection's live tables, then the same after a rebuild from the event store alone. */
  const expectRebuildEquals = async (name: string) => {
    const projection = allProjections.find((p) => p.name === name);
    if (!projection) throw new Error(`no projection ${name}`);
    const snapshot = () =>
      Promise.all(
        projection.tables.map((table) =>
          db.pool.anyFirst(sql.type(z.object({ row: z.string() }))`
            SELECT row_to_json(t)::text AS row FROM ${sql.identifier([table])} t ORDER BY 1`),
        ),
      );
    const live = await snapshot();
    expect(live.flat().length).toBeGreaterThan(0);
    const store = serviceEventStore(db.url, TEST_SECRETS.DATA_KEY_SECRET);
    try {
      await rebuildProjection({ pool: db.pool, store, connectionString: db.url, projection });
    } finally {
      await store.close();
    }
    expect(await snapshot()).toEqual(live);
  };

  /** Which processes hold which advisory locks, by the lock connection's name. */
  const leadersOf = async (keys: readonly string[]) => {
    const rows = await db.pool.any(sql.type(z.object({ key: z.string(), holder: z.string().nullable() }))`
      SELECT k.key, a.application_name AS holder
      FROM unnest(${sql.array([...keys], 'text')}) AS k(key)
      LEFT JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted
        AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(k.key, 0)
      LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      ORDER BY k.key, a.application_name`);
    return rows;
  };
  const leaderKeys = [
    ...allProjections.map((p) => `projection:${p.name}`),
    'processor:post-pushes',
    'processor:csat-notes',
    'processor:complaint-notes',
    'processor:contact-telemetry',
    'job:publish-scheduled',
    'job:retention',
    'job:support-reconcile',
    'job:prune-processed-events',
  ];

  it('runs one leader per projection, processor and job, all in the worker processes', async () => {
    await waitUntil(async () => (await leadersOf(leaderKeys)).every((row) => row.holder !== null), 15_000);
    const rows = await leadersOf(leaderKeys);
    // One row per key: no key is held twice, and every holder is a worker's lock connection.
    expect(rows.map((r) => r.key)).toEqual([...leaderKeys].sort());
    for (const row of rows)
      expect(row.holder, row.key).toMatch(/^support-channel-service:locks:worker-[12]$/);
  });

  it('answers a 304 on one replica for an ETag another replica gave', async () => {
    await postThrough(proxy.url, admin, channelId, ['publish'], { text: 'For every replica' });
    const path = `/api/channel/${channelId}/posts`;
    await waitUntil(async () => (await get(api(0).url, path, 'etag-user')).status === 200);
    const first = await eventually(
      () => get(api(0).url, path, 'etag-user'),
      (r) => r.status === 200,
    );
    const etag = first.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    for (const other of [api(1), api(2)]) {
      await eventually(
        () => get(other.url, path, 'etag-user', etag),
        (r) => r.status === 304,
      );
    }
  });

  it("shows a write on one replica on the others' polls", async () => {
    const postId = await postThrough(api(0).url, admin, channelId, ['publish'], { text: 'Fresh' });
    // The feed and the unread badge of the channel, on the two other replicas.
    const feedShows = (base: string) => async () => {
      const body = z
        .object({ items: z.array(z.object({ id: z.string() })) })
        .parse(await (await get(base, `/api/channel/${channelId}/posts`, 'reader')).json());
      return body.items.some((item) => item.id === postId);
    };
    for (const other of [api(1), api(2)]) await waitUntil(feedShows(other.url), 1_000);
    const unread = async (base: string) =>
      z
        .object({ channels: z.record(z.string(), z.number()) })
        .parse(await (await get(base, '/api/unread', 'reader')).json()).channels[channelId] ?? 0;
    const before = await unread(api(1).url);
    await postThrough(api(2).url, admin, channelId, ['publish'], { text: 'One more' });
    await waitUntil(async () => (await unread(api(1).url)) === before + 1);

    // A comment posted through api-1 is in the thread on api-2 and api-3.
    const comment = await commentAs(api(0).url, channelId, postId, 'Seen everywhere');
    expect(comment.status).toBe(201);
    const thread = `/api/channel/${channelId}/posts/${postId}/comments`;
    for (const other of [api(1), api(2)]) {
      await waitUntil(async () => {
        const body = (await (await get(other.url, thread, 'reader')).json()) as { items: { id: string }[] };
        return body.items.some((c) => c.id === comment.id);
      });
    }

    // A support request opened through api-3 is in the conversation list on api-1.
    const user = `list-${randomUUID()}`;
    const opened = await post(api(2).url, '/api/conversations', user, { text: 'Hello?' });
    expect(opened.status).toBe(201);
    const { conversationId } = z.object({ conversationId: z.string() }).parse(await opened.json());
    await waitUntil(async () => {
      const body = (await (await get(api(0).url, '/api/conversations', user)).json()) as {
        items: { id: string }[];
      };
      return body.items.some((c) => c.id === conversationId);
    });
  });

  it('hears changes again after its LISTEN connection is killed, and then answers 304s with no SQL', async () => {
    const replica = api(1);
    const path = `/api/channel/${channelId}/posts`;
    const listening = async () => {
      const text = await (await fetch(`${replica.url}/metrics`)).text();
      return /^notifications_connections\{process="api-2"\} (\d+)/m.exec(text)?.[1];
    };
    expect(await listening()).toBe('1');
    const killed = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(pg_terminate_backend(a.pid))::int AS n
      FROM service_instances i
      JOIN pg_stat_activity a ON a.application_name = 'support-channel-service:' || i.id
      WHERE i.name = 'api-2'`);
    expect(killed).toBe(1);
    await waitUntil(async () => (await listening()) === '2', 15_000);
    const ready = await fetch(`${replica.url}/health/ready`);
    expect(ready.status).toBe(200);
    // The first poll after the new epoch reads again; the ones after it read nothing.
    const first = await get(replica.url, path, 'listener');
    const etag = first.headers.get('etag') ?? '';
    await get(replica.url, path, 'listener', etag);
    const from = counter.statements.length;
    for (let i = 0; i < 5; i++) expect((await get(replica.url, path, 'listener', etag)).status).toBe(304);
    const background = [/service_instances/, /^LISTEN /, /pg_notify/, /advisory/, /pgboss\./, /FROM events/];
    expect(counter.statements.slice(from).filter((s) => !background.some((p) => p.test(s)))).toEqual([]);
  });

  it('holds the API rate limit, the login lockout, slow mode and presence across replicas', async () => {
    // The per-user API limit: one counter for the user, wherever the requests land. Replicas lease
    // blocks of it; a block one leased and did not use is lost to the others, never added to the limit.
    const limited = `limited-${randomUUID()}`;
    const statuses = await Promise.all(
      Array.from({ length: RATE_LIMIT + 30 }, (_, i) =>
        get(api(i % 3).url, '/api/settings/notifications', limited),
      ),
    ).then((answers) => answers.map((a) => a.status));
    const passed = statuses.filter((s) => s === 200).length;
    expect(passed).toBeLessThanOrEqual(RATE_LIMIT);
    expect(passed).toBeGreaterThanOrEqual(RATE_LIMIT - 3 * leaseSize(RATE_LIMIT, 0));
    expect(statuses.filter((s) => s === 429)).toHaveLength(statuses.length - passed);

    // The login lockout: a burst from one address over every replica gets five guesses checked.
    const ip = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    const logins = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postLogin(
          api(i % 3).url,
          { email: `ghost-${i}@example.com`, password: 'wrong guess here' },
          { 'x-forwarded-for': ip },
        ),
      ),
    );
    expect(logins.filter((l) => l.status === 401)).toHaveLength(5);

    // Slow mode: a burst of three, whichever replicas the comments go through.
    const postId = await postThrough(proxy.url, admin, channelId, ['publish'], { text: 'Slow' });
    const commenter = `slow-${randomUUID()}`;
    const comments = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        commentAs(api(i % 3).url, channelId, postId, `Comment ${i}`, commenter),
      ),
    );
    expect(comments.filter((c) => c.status === 201)).toHaveLength(3);

    // Presence: a user polling on api-1 is online for the worker that decides on a chat push.
    const present = `present-${randomUUID()}`;
    const absent = `absent-${randomUUID()}`;
    const conversations: Record<string, string> = {};
    for (const user of [present, absent]) {
      expect(
        (await post(proxy.url, '/api/devices/register', user, { platform: 'mobile', token: `fcm:${user}` }))
          .status,
      ).toBe(200);
      const opened = await post(proxy.url, '/api/conversations', user, { text: 'Anyone?' });
      conversations[user] = z
        .object({ conversationId: z.string() })
        .parse(await opened.json()).conversationId;
    }
    const polling = setInterval(() => void get(api(0).url, '/api/unread', present), 500);
    try {
      // Marks go out to Redis once a second: wait until the present user's has.
      await waitUntil(async () => (await redis?.get(`push:seen:${present}`)) != null, 5_000);
      for (const user of [present, absent]) {
        await sandbox.operator('POST', `/conversations/${conversations[user] ?? ''}/reply`, {
          body: 'Here!',
        });
      }
      const outcomeOf = (user: string) =>
        db.pool.maybeOneFirst(sql.type(z.object({ outcome: z.string() }))`
          SELECT outcome FROM push_deliveries WHERE user_id = ${user}`);
      expect(
        await eventually(
          () => outcomeOf(present),
          (o) => o !== null,
          15_000,
        ),
      ).toBe('online');
      expect(
        await eventually(
          () => outcomeOf(absent),
          (o) => o !== null,
          20_000,
        ),
      ).toBe('not_configured');
    } finally {
      clearInterval(polling);
    }
  });

  it('shows an operator reply on a replica whose Redis subscriber was down when the invalidation came', async () => {
    const user = `cut-${randomUUID()}`;
    const opened = await post(api(2).url, '/api/conversations', user, { text: 'Still there?' });
    const { conversationId } = z.object({ conversationId: z.string() }).parse(await opened.json());
    const messagesOn = async (base: string) =>
      z
        .object({ messages: z.array(z.unknown()) })
        .parse(await (await get(base, `/api/conversations/${conversationId}`, user)).json()).messages.length;
    // api-3 holds a copy of the conversation.
    expect(await messagesOn(api(2).url)).toBe(1);
    relay.cut();
    try {
      await sandbox.operator('POST', `/conversations/${conversationId}/reply`, { body: 'Yes!' });
      // The webhook is processed and the others see the reply; api-3 heard nothing.
      await waitUntil(async () => (await messagesOn(api(0).url)) === 2, 10_000);
    } finally {
      relay.restore();
    }
    await waitUntil(async () => (await messagesOn(api(2).url)) === 2, 5_000);
  });

  it('spends one Intercom budget for every replica', async () => {
    // The Intercom budget: new users opening requests on every replica at once spend one budget.
    const before = Date.now();
    const opened = await Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        post(api(i % 3).url, '/api/conversations', `budget-${i}-${randomUUID()}`, { text: 'Hi' }),
      ),
    );
    expect(opened.some((r) => r.status === 503 || r.status === 429)).toBe(true);
    const after = Date.now();
    // Each call takes its budget before it is sent; one taken at the end of a window may arrive in the
    // next, so the bound is on all of them: no more than the budget in each window the burst spanned.
    const windows = Math.floor(after / 10_000) - Math.floor(before / 10_000) + 1;
    const calls = z
      .object({ calls: z.array(z.object({ at: z.number() })) })
      .parse(await sandbox.operator('GET', '/calls'))
      .calls.filter((c) => c.at >= before && c.at <= after);
    expect(calls.length).toBeGreaterThan(BUDGET / 2);
    expect(calls.length).toBeLessThanOrEqual(BUDGET * windows);
    // The tests after this one start on a budget of their own.
    await sleep(10_000 - (Date.now() % 10_000) + 100);
  }, 60_000);

  it('keeps the connections under max_connections', async () => {
    const [used, max] = await Promise.all([
      db.pool.oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM pg_stat_activity`,
      ),
      db.pool.oneFirst(
        sql.type(
          z.object({ n: z.number() }),
        )`SELECT setting::int AS n FROM pg_settings WHERE name = 'max_connections'`,
      ),
    ]);
    expect(used).toBeLessThan(max);
  });

  it('takes over when the leader is killed, applying each event once and publishing once', async () => {
    const postId = await postThrough(proxy.url, admin, channelId, ['publish'], { text: 'Killed under' });
    // A scheduled post with a push, due in 3 s, and a device that wants it.
    const reader = `push-reader-${randomUUID()}`;
    await post(proxy.url, '/api/devices/register', reader, { platform: 'mobile', token: `fcm:${reader}` });
    const scheduled = await postThrough(proxy.url, admin, channelId, [], { text: 'Due soon' });
    const due = await adminCall(proxy.url, admin, 'POST', `/admin/posts/${scheduled}/schedule`, {
      publishAt: new Date(Date.now() + 3_000).toISOString(),
      notify: true,
    });
    expect(due.status).toBe(200);
    // Comments keep coming while the leader dies.
    const written: string[] = [];
    const writing = new AbortController();
    const writer = (async () => {
      while (!writing.signal.aborted) {
        const c = await commentAs(proxy.url, channelId, postId, 'Under fire');
        if (c.status === 201) written.push(c.id);
      }
    })();
    await sleep(500);
    const holderOf = async (key: string) =>
      (await leadersOf([key]))[0]?.holder?.replace('support-channel-service:locks:', '') ?? null;
    const leader = await holderOf('projection:comments');
    const victim = workers.find((w) => w.name === leader);
    if (!victim) throw new Error(`no worker leads the comments projection (${String(leader)})`);
    const survivor = workers.find((w) => w !== victim);
    victim.run.child.kill('SIGKILL');
    // That it takes over, not how soon: a test does not time it (the survivor asks every second).
    await waitUntil(async () => (await holderOf('projection:comments')) === survivor?.name, 15_000);
    await sleep(500);
    writing.abort();
    await writer;
    // Every comment answered 201 is in the table exactly once.
    await waitUntil(async () => {
      const ids = await db.pool.anyFirst(sql.type(z.object({ id: z.string() }))`
        SELECT id::text FROM channel_comments WHERE post_id = ${postId}`);
      return ids.length === written.length && written.every((id) => ids.includes(id));
    }, 10_000);
    // The scheduled post: published once, its push fanned out once to the device.
    await waitUntil(async () => {
      const status = await db.pool.oneFirst(sql.type(z.object({ status: z.string() }))`
        SELECT status FROM channel_posts WHERE id = ${scheduled}`);
      return status === 'published';
    }, 15_000);
    await sleep(1_000);
    const published = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM events WHERE stream_name = ${`channelPost-${scheduled}`} AND event_type = 'postPublished'`);
    expect(published).toBe(1);
    const deliveries = await eventually(
      () =>
        db.pool.anyFirst(sql.type(z.object({ outcome: z.string() }))`
          SELECT d.outcome FROM push_deliveries d JOIN push_log l ON l.source_id = d.source_id
          WHERE l.post_id = ${scheduled} AND d.user_id = ${reader}`),
      (rows) => rows.length > 0,
      15_000,
    );
    expect(deliveries).toHaveLength(1);
    await victim.restart();
    // The comments' read tables, filled by two workers across a kill, equal a rebuild from the events.
    await expectRebuildEquals('comments');
  }, 120_000);

  it('restarts every API process in turn behind the proxy without a single 5xx', async () => {
    const statuses: number[] = [];
    const polling = new AbortController();
    const user = `rolling-${randomUUID()}`;
    const poller = (async () => {
      while (!polling.signal.aborted) {
        try {
          statuses.push((await get(proxy.url, '/api/unread', user)).status);
        } catch {
          statuses.push(0);
        }
      }
    })();
    for (const replica of apis) {
      expect(await replica.stop()).toBe(0);
      await replica.restart();
    }
    polling.abort();
    await poller;
    expect(statuses.length).toBeGreaterThan(50);
    expect(statuses.filter((s) => s >= 500 || s === 0)).toEqual([]);
  }, 180_000);
});

describe('several processes without Redis', () => {
  it('refuses API_PROCESSES > 1 in production without REDIS_URL, naming the setting', async () => {
    const refused = await startServiceProcess(
      'refused',
      {
        NODE_ENV: 'production',
        API_PROCESSES: '2',
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      },
      { waitReady: false },
    );
    expect(await refused.run.exited).toBe(1);
    expect(refused.run.output()).toContain('REDIS_URL');
  });

  it('reports not ready elsewhere, with the reason, while two of them are live', async () => {
    const db = await createTestDatabase();
    try {
      const env = { DATABASE_URL: db.url, TRUST_PROXY_HOPS: '0' };
      const first = await startServiceProcess('alone-1', env);
      const second = await startServiceProcess('alone-2', env, { waitReady: false });
      try {
        for (const one of [first, second]) {
          const answer = await eventually(
            async () => {
              try {
                return await fetch(`${one.url}/health/ready`);
              } catch {
                return null;
              }
            },
            (r) => r?.status === 503,
            30_000,
          );
          expect(await answer?.text()).toContain('no REDIS_URL');
        }
        const metrics = await (await fetch(`${first.url}/metrics`)).text();
        expect(metrics).toMatch(/^service_state_split\{process="alone-1"\} 1$/m);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
      }
    } finally {
      await db.drop();
    }
  }, 90_000);
});
