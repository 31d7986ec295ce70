import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type PushFakes, startPushFakes } from '../../src/dev/push-fakes/index.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import { createLogger } from '../../src/http/logger.ts';
import { loadLiveState } from '../../src/projections/checkpoints.ts';
import { devicesProjection } from '../../src/projections/devices.ts';
import { tablesOf } from '../../src/projections/projection.ts';
import { erasePushData } from '../../src/push/erasure.ts';
import { deliveryCounts } from '../../src/push/push-log.ts';
import { deviceKey, PUSH_QUEUES, type QueuedDevice, type SendJob } from '../../src/push/queues.ts';
import { type PushServices, startPush } from '../../src/wiring/push.ts';
import { testConfig } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { eventually, waitUntil } from '../support/eventually.ts';

// Erasing a user's push data (decision 048) on the real queue (pg-boss), with the real senders against the
// loopback FCM and Telegram fakes. The devices read table is written directly: deleting a user's rows
// from it stands in for the devices projection applying the erasure, which erasePushData expects first.

let fakes: PushFakes;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  fakes = await startPushFakes({ fcm: { record: true } });
});
afterAll(async () => {
  await fakes.close();
});
beforeEach(() => {
  fakes.fcm.clear();
  fakes.fcm.setLatency(0);
  fakes.fcm.resetFailures();
  fakes.telegram.clear();
  fakes.telegram.resetFailures();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scenario() {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const store = createPostgresEventStore({ connectionString: db.url, logger: createLogger('silent') });
  cleanups.push(() => store.close());
  const { generation } = await loadLiveState(db.pool, devicesProjection);
  const push = await startPush({
    config: testConfig({ ...fakes.env, PUSH_WORKERS: '1', MESSENGER_MESSAGES_PER_SECOND: '30' }),
    pool: db.pool,
    databaseUrl: db.url,
    logger: createLogger('silent'),
    retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 },
    backstopPollSeconds: 2,
  });
  cleanups.push(() => push.close());
  return { db, store, push, devices: tablesOf(devicesProjection, generation).devices };
}
type Scenario = Awaited<ReturnType<typeof scenario>>;

const userId = (n: number) => `u${String(n).padStart(5, '0')}`;
const phone = (n: number) => `phone-${n}`;

/** Users 1…count with a phone each, and chats for some of them, straight into the read table. */
async function addDevices({ db, devices }: Scenario, phones: number, chats: readonly number[]) {
  await db.pool.query(sql.unsafe`
    INSERT INTO ${devices} (user_id, token, platform, provider, registered_at, updated_at)
    SELECT 'u' || lpad(n::text, 5, '0'), 'phone-' || n, 'mobile', 'fcm', now(), now()
    FROM generate_series(1, ${phones}::int) AS n`);
  for (const n of chats)
    await db.pool.query(sql.unsafe`
      INSERT INTO ${devices} (user_id, token, platform, provider, registered_at, updated_at)
      VALUES (${userId(n)}, ${String(9000 + n)}, 'tma', 'telegram', now(), now())`);
}

/** What the caller of erasePushData does first: read the user's tokens, then (the projection) drop them. */
async function dropDevices({ db, devices }: Scenario, user: string): Promise<string[]> {
  const tokens = await db.pool.anyFirst(sql.type(z.object({ token: z.string() }))`
    SELECT token FROM ${devices} WHERE user_id = ${user}`);
  await db.pool.query(sql.unsafe`DELETE FROM ${devices} WHERE user_id = ${user}`);
  return [...tokens];
}

const notice = (noticeId = randomUUID()) =>
  ({ kind: 'notice', noticeId, title: 'Maintenance', body: 'Tonight.' }) as const;

const broadcast = async (push: PushServices) => {
  const content = notice();
  const sourceId = `notice:${content.noticeId}`;
  await push.broadcaster.broadcast(sourceId, content, null);
  return sourceId;
};

const jobRow = z.object({ id: z.string(), name: z.string(), state: z.string(), data: z.unknown() });
const pushJobs = (db: TestDatabase) =>
  db.pool.any(sql.type(jobRow)`
    SELECT id::text, name, state::text, data FROM pgboss.job
    WHERE name = ANY (${sql.array(Object.values(PUSH_QUEUES), 'text')}) ORDER BY name, created_on, id`);
const summary = z.union([
  z.object({ sourceId: z.string(), devices: z.array(z.unknown()) }),
  z.object({ sourceId: z.string(), userIds: z.array(z.string()).nullable() }),
]);
/** Each push job's queue, source, and whom it reaches (its users, or its devices). */
const jobSummaries = async (db: TestDatabase) =>
  (await pushJobs(db)).map((j) => ({ queue: j.name, ...summary.parse(j.data) }));
/** The push jobs whose data names any of these strings (a user id, a token or a device key). */
const jobsNaming = async (db: TestDatabase, names: readonly string[]) =>
  (await pushJobs(db)).filter((j) => names.some((n) => JSON.stringify(j.data).includes(`"${n}"`)));

const fanout = (db: TestDatabase, sourceId: string) =>
  db.pool.maybeOne(sql.type(z.object({ done: z.boolean() }))`
    SELECT fanned_out_at IS NOT NULL AS done FROM push_log WHERE source_id = ${sourceId}`);
const activeJobs = (db: TestDatabase, queue: string) =>
  db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM pgboss.job WHERE name = ${queue} AND state = 'active'`);
const settled = (db: TestDatabase, sourceId: string, devices: number) =>
  eventually(
    () => deliveryCounts(db.pool, sourceId),
    (c) => Object.values(c).reduce((a, b) => a + b, 0) === devices && c.queued === 0,
    20_000,
  );
const userDeliveries = (db: TestDatabase, user: string) =>
  db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM push_deliveries WHERE user_id = ${user}`);

const phoneStatuses = (token: string) =>
  fakes.fcm
    .received()
    .filter((m) => m.token === token)
    .map((m) => m.status);
const chatStatuses = (chatId: string) =>
  fakes.telegram
    .received()
    .filter((m) => m.chatId === chatId)
    .map((m) => m.status);
const phonesSent = () =>
  new Set(
    fakes.fcm
      .received()
      .filter((m) => m.status === 200)
      .map((m) => m.token),
  );

/**
 * A broadcast to 600 phones and the chats of users 1, 2 and `user`, caught in the middle.
 *
 * 600 phones: the fan-out's first page (400 users) is one FCM batch, its second (200) another. One
 * mobile worker and a slow FCM (50 requests at a time, 500 ms each) hold the second batch in the queue
 * for about 4 s while the first is in flight; a 429 on the first chat holds the bot for 3 s, so the
 * chats wait too.
 */
async function broadcastInProgress(user: number) {
  const at = await scenario();
  await addDevices(at, 600, [...new Set([1, 2, user])]);
  fakes.fcm.setLatency(500);
  fakes.telegram.failChat('9001', 'rate', { times: 1, retryAfterSeconds: 3 });
  await at.push.startWorkers(at.store);
  const sourceId = await broadcast(at.push);
  await waitUntil(
    async () =>
      (await fanout(at.db, sourceId))?.done === true &&
      (await activeJobs(at.db, PUSH_QUEUES.mobile)) === 1 &&
      chatStatuses('9001').includes(429),
    10_000,
  );
  return { ...at, sourceId };
}

describe('erasePushData', () => {
  const ERASED = 'erased-user';
  const KEPT = 'kept-user';
  const device = (user: string, token: string): QueuedDevice => ({
    userId: user,
    token,
    key: deviceKey(token),
  });
  const erasedPhone = device(ERASED, 'erased-phone');
  const erasedChat = device(ERASED, '7777001');
  const keptPhone = device(KEPT, 'kept-phone');
  const keptChat = device(KEPT, '7777002');
  const erasedNames = [ERASED, erasedPhone.token, erasedPhone.key, erasedChat.token, erasedChat.key];
  const send = (sourceId: string, devices: QueuedDevice[]): SendJob => ({
    sourceId,
    content: notice(),
    devices,
    attempt: 1,
  });
  const fanoutTo = (sourceId: string, userIds: string[] | null) => ({
    sourceId,
    content: notice(),
    userIds,
    createdAt: Date.now(),
  });

  /** What the push tables hold of each user, table by table. */
  async function holdings(db: TestDatabase, user: string, keys: readonly string[]) {
    const count = (statement: ReturnType<typeof sql.unsafe>) =>
      db.pool.oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM (${statement}) x`,
      );
    const inKeys = sql.array([...keys], 'text');
    return {
      settings: await count(sql.unsafe`SELECT 1 FROM notification_settings WHERE user_id = ${user}`),
      log: await count(
        sql.unsafe`SELECT 1 FROM push_log WHERE user_id = ${user} OR cursor_user_id = ${user}`,
      ),
      deliveries: await count(
        sql.unsafe`SELECT 1 FROM push_deliveries WHERE user_id = ${user} OR device_key = ANY (${inKeys})`,
      ),
      refusals: await count(
        sql.unsafe`SELECT 1 FROM push_device_refusals WHERE device_key = ANY (${inKeys})`,
      ),
      pace: await count(sql.unsafe`SELECT 1 FROM push_messenger_pace WHERE chat_key = ANY (${inKeys})`),
      notices: await count(sql.unsafe`SELECT 1 FROM push_notices WHERE ${user} = ANY (user_ids)`),
    };
  }

  async function seedRows(db: TestDatabase) {
    for (const [user, chat] of [
      [ERASED, erasedChat],
      [KEPT, keptChat],
    ] as const) {
      await db.pool.query(
        sql.unsafe`INSERT INTO notification_settings (user_id, chat_messages) VALUES (${user}, false)`,
      );
      await db.pool.query(sql.unsafe`
        INSERT INTO push_log (source_id, user_id, category, kind, conversation_id, outcome)
        VALUES (${`reply-${user}`}, ${user}, 'chat', 'reply', 'c1', 'queued')`);
      await db.pool.query(
        sql.unsafe`INSERT INTO push_device_refusals (device_key, refusals) VALUES (${chat.key}, 1)`,
      );
      await db.pool.query(
        sql.unsafe`INSERT INTO push_messenger_pace (chat_key, next_at) VALUES (${chat.key}, now())`,
      );
    }
    // A finished broadcast whose cursor stopped at the erased user.
    await db.pool.query(sql.unsafe`
      INSERT INTO push_log (source_id, user_id, category, kind, notice_id, outcome, cursor_user_id, fanned_out_at)
      VALUES ('notice:done', NULL, 'system', 'notice', 'done', 'queued', ${ERASED}, now())`);
    for (const [source, d] of [
      ['notice:done', erasedPhone],
      ['notice:done', keptPhone],
      [`reply-${ERASED}`, erasedChat],
      [`reply-${KEPT}`, keptChat],
    ] as const)
      await db.pool.query(sql.unsafe`
        INSERT INTO push_deliveries (source_id, device_key, user_id, platform, outcome)
        VALUES (${source}, ${d.key}, ${d.userId}, 'mobile', 'sent')`);
    for (const [id, users] of [
      ['n-both', [ERASED, KEPT]],
      ['n-erased', [ERASED]],
      ['n-all', null],
    ] as const)
      await db.pool.query(sql.unsafe`
        INSERT INTO push_notices (id, title, body, user_ids, admin_id)
        VALUES (${id}, 'T', 'B', ${users === null ? null : sql.array([...users], 'text')}, 'admin-1')`);
  }

  it('removes the user’s rows and jobs, trims shared jobs to the others, and leaves another user’s', async () => {
    const { db, push } = await scenario();
    const boss = push.queue;
    await seedRows(db);
    // A send that has run (kept a day with its data), then queued ones: no worker runs here.
    const doneId = await boss.send(PUSH_QUEUES.mobile, send('notice:done', [erasedPhone, keptPhone]));
    const [fetched] = await boss.fetch(PUSH_QUEUES.mobile);
    expect(fetched?.id).toBe(doneId);
    await boss.complete(PUSH_QUEUES.mobile, doneId ?? '');
    await boss.send(PUSH_QUEUES.fanout, fanoutTo(`reply-${ERASED}`, [ERASED]));
    await boss.send(PUSH_QUEUES.fanout, fanoutTo('notice:n-both', [ERASED, KEPT]));
    await boss.send(PUSH_QUEUES.fanout, fanoutTo('notice:n-all', null));
    await boss.send(PUSH_QUEUES.mobile, send('notice:a', [erasedPhone, keptPhone]));
    await boss.send(PUSH_QUEUES.mobile, send('notice:b', [erasedPhone]));
    // The erased user's phone, queued while it was still another user's.
    await boss.send(PUSH_QUEUES.mobile, send('notice:c', [device('earlier-holder', erasedPhone.token)]));
    await boss.send(PUSH_QUEUES.messenger, send('notice:a', [erasedChat]));
    await boss.send(PUSH_QUEUES.messenger, send('notice:a', [keptChat]));
    expect(await jobsNaming(db, erasedNames)).toHaveLength(7);

    const erased = await erasePushData(
      { pool: db.pool, boss },
      { userId: ERASED, tokens: [erasedPhone.token, erasedChat.token] },
    );

    expect(erased.jobs).toEqual({ deleted: 5, trimmed: 2 });
    expect(await jobsNaming(db, erasedNames)).toEqual([]);
    const left = await jobSummaries(db);
    expect(left).toEqual([
      { queue: PUSH_QUEUES.fanout, sourceId: 'notice:n-both', userIds: [KEPT] },
      { queue: PUSH_QUEUES.fanout, sourceId: 'notice:n-all', userIds: null },
      { queue: PUSH_QUEUES.messenger, sourceId: 'notice:a', devices: [keptChat] },
      { queue: PUSH_QUEUES.mobile, sourceId: 'notice:a', devices: [keptPhone] },
    ]);
    const erasedKeys = [erasedPhone.key, erasedChat.key];
    const nothing = { settings: 0, log: 0, deliveries: 0, refusals: 0, pace: 0, notices: 0 };
    expect(await holdings(db, ERASED, erasedKeys)).toEqual(nothing);
    expect(await holdings(db, KEPT, [keptPhone.key, keptChat.key])).toEqual({
      settings: 1,
      log: 1,
      deliveries: 2,
      refusals: 1,
      pace: 1,
      notices: 1,
    });
    const notices = await db.pool.any(sql.type(
      z.object({ id: z.string(), user_ids: z.array(z.string()).nullable() }),
    )`
      SELECT id, user_ids FROM push_notices ORDER BY id`);
    expect(notices).toEqual([
      { id: 'n-all', user_ids: null },
      { id: 'n-both', user_ids: [KEPT] },
      // Nobody, still: an emptied list does not become "everyone".
      { id: 'n-erased', user_ids: [] },
    ]);

    // Again: nothing left to do.
    const again = await erasePushData(
      { pool: db.pool, boss },
      { userId: ERASED, tokens: [erasedPhone.token, erasedChat.token] },
    );
    expect(again).toEqual({ jobs: { deleted: 0, trimmed: 0 }, rows: 0 });
    expect(await jobSummaries(db)).toEqual(left);
  });
});

describe('an erasure during a broadcast', () => {
  it('sends nothing more to the erased user’s devices, while the others still get it', async () => {
    const erased = 600;
    const at = await broadcastInProgress(erased);
    const { db } = at;
    // The erased user's phone and chat wait in jobs that hold their tokens.
    expect(await jobsNaming(db, [phone(erased), String(9000 + erased)])).not.toEqual([]);
    expect(phoneStatuses(phone(erased))).toEqual([]);
    expect(chatStatuses(String(9000 + erased))).toEqual([]);

    const tokens = await dropDevices(at, userId(erased));
    await erasePushData({ pool: db.pool, boss: at.push.queue }, { userId: userId(erased), tokens });

    expect(await jobsNaming(db, [userId(erased), ...tokens, ...tokens.map(deviceKey)])).toEqual([]);
    // 599 phones and two chats: the erased user's deliveries are gone.
    const counts = await settled(db, at.sourceId, 601);
    expect(counts.sent).toBe(601);
    expect(phonesSent().size).toBe(599);
    expect(phoneStatuses(phone(erased))).toEqual([]);
    expect(chatStatuses(String(9000 + erased))).toEqual([]);
    expect(chatStatuses('9001')).toEqual([429, 200]);
    expect(chatStatuses('9002')).toEqual([200]);
    expect(await userDeliveries(db, userId(erased))).toBe(0);
  }, 30_000);

  it('waits for a batch in flight to the user, and the retry it queues is never sent', async () => {
    const erased = 1;
    fakes.fcm.failToken(phone(erased), 'internal', { times: 1 });
    const at = await broadcastInProgress(erased);
    const { db } = at;
    // The first batch, the erased user's phone in it, is at FCM.
    const inFlight = await db.pool.anyFirst(sql.type(z.object({ token: z.string() }))`
      SELECT d->>'token' AS token FROM pgboss.job j, jsonb_array_elements(j.data->'devices') d
      WHERE j.name = ${PUSH_QUEUES.mobile} AND j.state = 'active'`);
    expect(inFlight).toContain(phone(erased));

    const tokens = await dropDevices(at, userId(erased));
    await erasePushData({ pool: db.pool, boss: at.push.queue }, { userId: userId(erased), tokens });

    // It came back after that batch ended: the batch (and any retry of the phone) is gone from the queue.
    expect(await jobsNaming(db, [userId(erased), ...tokens, ...tokens.map(deviceKey)])).toEqual([]);
    expect(phoneStatuses(phone(erased))).toEqual([500]);
    // 599 phones and the other chat.
    const counts = await settled(db, at.sourceId, 600);
    expect(counts.sent).toBe(600);
    expect(phonesSent().size).toBe(599);
    expect(phoneStatuses(phone(erased))).toEqual([500]);
    // The erased user's chat was the one held by the 429: it is not tried again.
    expect(chatStatuses('9001')).toEqual([429]);
    expect(chatStatuses('9002')).toEqual([200]);
  }, 30_000);
});

describe('a device gone from the devices table before its send', () => {
  it('gets nothing, and its delivery row goes; the others are sent', async () => {
    const at = await broadcastInProgress(600);
    const { db, sourceId } = at;
    expect(await jobsNaming(db, [phone(600), '9600'])).not.toEqual([]);

    // Unregistered (or erased) while its sends wait in the queue: no erasePushData here.
    await dropDevices(at, userId(600));

    const counts = await settled(db, sourceId, 601);
    expect(counts.sent).toBe(601);
    expect(phonesSent().size).toBe(599);
    expect(phoneStatuses(phone(600))).toEqual([]);
    expect(chatStatuses('9600')).toEqual([]);
    expect(await userDeliveries(db, userId(600))).toBe(0);
  }, 30_000);
});
