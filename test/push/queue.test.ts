import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Registry } from 'prom-client';
import { sql } from 'slonik';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { productionGuardFailures } from '../../src/config.ts';
import { type PushFakes, startPushFakes } from '../../src/dev/push-fakes/index.ts';
import { createLogger } from '../../src/http/logger.ts';
import { loadLiveState } from '../../src/projections/checkpoints.ts';
import { devicesProjection } from '../../src/projections/devices.ts';
import { tablesOf } from '../../src/projections/projection.ts';
import { type DeliveryOutcome, deliveryCounts } from '../../src/push/push-log.ts';
import { deviceKey, PUSH_QUEUES } from '../../src/push/queues.ts';
import { type PushOptions, type PushServices, startPush } from '../../src/wiring/push.ts';
import { type EnvOverrides, LogCapture, TEST_SECRETS, testConfig } from '../support/app.ts';
import { serviceEventStore } from '../support/service-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { eventually, waitUntil } from '../support/eventually.ts';
import { spawnService } from '../support/process.ts';

// The push queue (pg-boss) with more than one service on it: replicas sharing a broadcast, a worker
// killed mid-broadcast, a service stopped mid-fan-out, and the settings that leave a push service out.

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
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A database of the test's own (a broadcast to everyone reaches only its devices), an event store on it. */
async function scenario() {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const store = serviceEventStore(db.url, TEST_SECRETS.DATA_KEY_SECRET);
  cleanups.push(() => store.close());
  // The public `devices` view reads the live generation of the devices projection; this creates it.
  const { generation } = await loadLiveState(db.pool, devicesProjection);
  return { db, store, devices: tablesOf(devicesProjection, generation).devices };
}
type Scenario = Awaited<ReturnType<typeof scenario>>;

async function service(db: TestDatabase, env: EnvOverrides, options: Partial<PushOptions> = {}) {
  const logs = new LogCapture();
  const registry = new Registry();
  const push = await startPush({
    config: testConfig({ PUSH_WORKERS: '2', ...env }),
    pool: db.pool,
    databaseUrl: db.url,
    logger: createLogger('info', logs),
    registry,
    retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 },
    // Jobs the queue itself retries (a dead worker's, a stopped fan-out's) are found within 2 s.
    backstopPollSeconds: 2,
    ...options,
  });
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= push.close());
  cleanups.push(close);
  return { push, registry, logs, close };
}

const userId = (n: number) => `u${String(n).padStart(5, '0')}`;
const phone = (n: number) => `phone-${n}`;

/** Users 1…count with a phone each, straight into the read table; every `mutedEvery`th user muted notices. */
async function addPhones({ db, devices }: Scenario, count: number, mutedEvery = 0): Promise<void> {
  await db.pool.query(sql.unsafe`
    INSERT INTO ${devices} (user_id, token, platform, provider, registered_at, updated_at)
    SELECT 'u' || lpad(n::text, 5, '0'), 'phone-' || n, 'mobile', 'fcm', now(), now()
    FROM generate_series(1, ${count}::int) AS n`);
  if (mutedEvery === 0) return;
  await db.pool.query(sql.unsafe`
    INSERT INTO notification_settings (user_id, system_notices)
    SELECT 'u' || lpad(n::text, 5, '0'), false
    FROM generate_series(${mutedEvery}::int, ${count}::int, ${mutedEvery}::int) AS n`);
}

async function addDevice({ db, devices }: Scenario, user: string, platform: 'mobile' | 'tma', token: string) {
  await db.pool.query(sql.unsafe`
    INSERT INTO ${devices} (user_id, token, platform, provider, registered_at, updated_at)
    VALUES (${user}, ${token}, ${platform}, ${platform === 'mobile' ? 'fcm' : 'telegram'}, now(), now())`);
}

const broadcast = async (push: PushServices, noticeId = randomUUID()) => {
  const sourceId = `notice:${noticeId}`;
  const content = { kind: 'notice', noticeId, title: 'Maintenance', body: 'Tonight.' } as const;
  await push.broadcaster.broadcast(sourceId, content, null);
  return sourceId;
};
const chat = (push: PushServices, sourceId: string, user: string) =>
  push.dispatcher.dispatch({ sourceId, userId: user, category: 'chat', conversationId: 'c1' });

const total = (counts: Readonly<Record<DeliveryOutcome, number>>) =>
  Object.values(counts).reduce((a, b) => a + b, 0);
const settled = (db: TestDatabase, sourceId: string, devices: number, ms: number) =>
  eventually(
    () => deliveryCounts(db.pool, sourceId),
    (c) => total(c) === devices && c.queued === 0,
    ms,
  );

/** How often the FCM fake took each token (answered 200). */
function receipts(): Map<string, number> {
  const times = new Map<string, number>();
  for (const m of fakes.fcm.received())
    if (m.status === 200) times.set(m.token, (times.get(m.token) ?? 0) + 1);
  return times;
}
const duplicates = () => [...receipts().values()].filter((n) => n > 1).length;

/** push_deliveries_total of one service, for one outcome. */
async function counted(registry: Registry, outcome: DeliveryOutcome): Promise<number> {
  const values = (await registry.getSingleMetric('push_deliveries_total')?.get())?.values ?? [];
  return values.filter((v) => v.labels['outcome'] === outcome).reduce((n, v) => n + v.value, 0);
}

const fanout = (db: TestDatabase, sourceId: string) =>
  db.pool.one(sql.type(z.object({ cursor: z.string().nullable(), done: z.boolean(), outcome: z.string() }))`
    SELECT cursor_user_id AS cursor, fanned_out_at IS NOT NULL AS done, outcome
    FROM push_log WHERE source_id = ${sourceId}`);

const messages = (logs: LogCapture) =>
  logs.lines.map((l) => z.object({ level: z.number(), msg: z.string() }).parse(JSON.parse(l)));

describe('two services on one queue', () => {
  it('share a broadcast to 3,000 phones: each phone gets exactly one push, and both services sent some', async () => {
    const at = await scenario();
    const { db, store } = at;
    await addPhones(at, 3_000);
    fakes.fcm.setLatency(20);
    const [a, b] = [await service(db, fakes.env), await service(db, fakes.env)];
    await a.push.startWorkers(store);
    await b.push.startWorkers(store);

    const sourceId = await broadcast(a.push);
    const counts = await settled(db, sourceId, 3_000, 20_000);

    expect(counts.sent).toBe(3_000);
    expect(receipts().size).toBe(3_000);
    expect(duplicates()).toBe(0);
    const [byA, byB] = [await counted(a.registry, 'sent'), await counted(b.registry, 'sent')];
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
    expect(byA + byB).toBe(3_000);
  }, 30_000);

  it('keep Telegram’s pace between them: never more than the set messages a second, nor two a second to one chat', async () => {
    const at = await scenario();
    const { db, store } = at;
    for (let n = 1; n <= 20; n++) await addDevice(at, `t${n}`, 'tma', String(8000 + n));
    const env = { ...fakes.env, MESSENGER_MESSAGES_PER_SECOND: '8' };
    const [a, b] = [await service(db, env), await service(db, env)];
    await a.push.startWorkers(store);
    await b.push.startWorkers(store);
    fakes.telegram.clear();

    // Two broadcasts at once: every chat gets two messages, from whichever service takes the job.
    const [first, second] = await Promise.all([broadcast(a.push), broadcast(b.push)]);
    await settled(db, first, 20, 20_000);
    await settled(db, second, 20, 20_000);

    expect(fakes.telegram.received().filter((m) => m.status === 200)).toHaveLength(40);
    const peaks = fakes.telegram.peakRates();
    expect(peaks.overall).toBeLessThanOrEqual(8);
    expect(peaks.perChat).toBeLessThanOrEqual(1);
  }, 30_000);
});

describe('a worker killed mid-broadcast', () => {
  // A send job whose worker died stays `active` until its heartbeat (heartbeatSeconds on the push queues)
  // is missed; the supervisor of this process (every second) then fails it and the queue retries it.
  it('leaves no phone unsent: the batches in flight go again, and only they are sent twice', async () => {
    const at = await scenario();
    const { db, store } = at;
    await addPhones(at, 2_000);
    fakes.fcm.setLatency(200);
    const workers = 2;
    const child = spawnService(process.execPath, ['test/support/push-worker.ts'], {
      DATABASE_URL: db.url,
      DATA_KEY_SECRET: TEST_SECRETS.DATA_KEY_SECRET,
      ...fakes.env,
      PUSH_WORKERS: String(workers),
    });
    cleanups.push(async () => {
      child.child.kill('SIGKILL');
      await child.exited;
    });
    await child.waitFor(/ready/, 15_000);
    // This process only queues until the child is dead.
    const here = await service(db, fakes.env, { superviseIntervalSeconds: 1 });
    const sourceId = await broadcast(here.push);

    const atKill = await eventually(
      () => deliveryCounts(db.pool, sourceId),
      (c) => total(c) === 2_000 && c.sent >= 400,
      15_000,
    );
    child.child.kill('SIGKILL');
    await child.exited;
    expect(atKill.queued).toBeGreaterThan(0);
    expect((await fanout(db, sourceId)).done).toBe(true);
    // The jobs the child held when it died: nothing else can take them before their heartbeat is missed.
    const inFlight = await db.pool.anyFirst(sql.type(z.object({ token: z.string() }))`
      SELECT d->>'token' AS token FROM pgboss.job j, jsonb_array_elements(j.data->'devices') d
      WHERE j.name = ${PUSH_QUEUES.mobile} AND j.state = 'active'`);
    expect(inFlight.length).toBeGreaterThan(0);
    expect(inFlight.length).toBeLessThanOrEqual(workers * 500);

    await here.push.startWorkers(store);
    const counts = await settled(db, sourceId, 2_000, 30_000);
    expect(counts.sent).toBe(2_000);
    expect(receipts().size).toBe(2_000);
    const twice = [...receipts()].filter(([, n]) => n > 1).map(([token]) => token);
    expect(twice.filter((token) => !inFlight.includes(token))).toEqual([]);
  }, 45_000);
});

describe('a service stopped in the middle of a fan-out', () => {
  it('goes on from its cursor on the next service, queuing no device twice', async () => {
    const at = await scenario();
    const { db, store } = at;
    await addPhones(at, 3_000, 10);
    const heldUser = 2_000;
    const a = await service(db, fakes.env);
    await a.push.startWorkers(store);
    const noticeId = randomUUID();
    const sourceId = `notice:${noticeId}`;
    // An uncommitted delivery row of one phone far into the list: the fan-out's insert of that page waits
    // for it, so the fan-out stands still after its earlier pages.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    cleanups.push(() => holder.end());
    await holder.query('BEGIN');
    await holder.query(
      `INSERT INTO push_deliveries (source_id, device_key, user_id, platform, outcome)
       VALUES ($1, $2, $3, 'mobile', 'queued')`,
      [sourceId, deviceKey(phone(heldUser)), userId(heldUser)],
    );
    await broadcast(a.push, noticeId);
    const waiting = await eventually(
      () =>
        db.pool.anyFirst(sql.type(z.object({ pid: z.number() }))`
          SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND query LIKE '%INSERT INTO push_deliveries%'`),
      (pids) => pids.length === 1,
      10_000,
    );
    const cut = await fanout(db, sourceId);
    expect(cut.done).toBe(false);
    expect(cut.cursor).not.toBeNull();
    expect((cut.cursor ?? '') < userId(heldUser)).toBe(true);

    // Stopped while the fan-out runs; its database connection goes too, so the fan-out ends in an error
    // and the queue offers it again.
    const closing = a.close();
    await db.pool.query(sql.unsafe`SELECT pg_terminate_backend(${waiting[0] ?? 0})`);
    await closing;
    await holder.query('ROLLBACK');
    expect(await fanout(db, sourceId)).toMatchObject({ cursor: cut.cursor, done: false });

    const b = await service(db, fakes.env);
    await b.push.startWorkers(store);
    const counts = await settled(db, sourceId, 3_000, 20_000);
    expect(counts).toMatchObject({ sent: 2_700, muted: 300 });
    expect(await fanout(db, sourceId)).toMatchObject({ cursor: userId(3_000), done: true });

    // The new service read only the users after the cursor: the muted ones before it were A's alone.
    const mutedAfter = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM notification_settings
      WHERE NOT system_notices AND user_id > ${cut.cursor}`);
    expect(await counted(b.registry, 'muted')).toBe(mutedAfter);
    expect(await counted(a.registry, 'muted')).toBe(300 - mutedAfter);
    // Each phone is in one send job and got one push.
    const queued = await db.pool.any(sql.type(z.object({ key: z.string(), jobs: z.number() }))`
      SELECT d->>'key' AS key, count(*)::int AS jobs
      FROM pgboss.job j, jsonb_array_elements(j.data->'devices') d
      WHERE j.name = ${PUSH_QUEUES.mobile} AND j.data->>'sourceId' = ${sourceId} GROUP BY 1`);
    expect(queued).toHaveLength(2_700);
    expect(queued.filter((q) => q.jobs > 1)).toEqual([]);
    expect(receipts().size).toBe(2_700);
    expect(duplicates()).toBe(0);
  }, 30_000);
});

describe('without a push service', () => {
  it('records the deliveries as not configured, a user without devices as no_device, and says so in the log', async () => {
    const at = await scenario();
    const { db, store } = at;
    await addDevice(at, 'both', 'mobile', 'both-phone');
    await addDevice(at, 'both', 'tma', '9001');
    // testConfig reads no process environment: no PUSH_SERVICE_ACCOUNT, FCM_BASE_URL, MESSENGER_BOT_TOKEN.
    const bare = await service(db, {});
    await bare.push.startWorkers(store);

    await chat(bare.push, 'nc-both', 'both');
    await chat(bare.push, 'nc-none', 'nobody');
    await waitUntil(
      async () => (await fanout(db, 'nc-none').catch(() => null))?.outcome === 'no_device',
      10_000,
    );
    const counts = await settled(db, 'nc-both', 2, 10_000);

    expect(counts.not_configured).toBe(2);
    const rows = await db.pool.any(sql.type(z.object({ platform: z.string(), outcome: z.string() }))`
      SELECT platform, outcome FROM push_deliveries WHERE source_id = 'nc-both' ORDER BY platform`);
    expect(rows).toEqual([
      { platform: 'mobile', outcome: 'not_configured' },
      { platform: 'tma', outcome: 'not_configured' },
    ]);
    expect(await counted(bare.registry, 'not_configured')).toBe(2);
    const sendJobs = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM pgboss.job
      WHERE name IN (${PUSH_QUEUES.mobile}, ${PUSH_QUEUES.messenger})`);
    expect(sendJobs).toBe(0);
    const logged = messages(bare.logs);
    expect(logged).toContainEqual({
      level: 30,
      msg: 'PUSH_SERVICE_ACCOUNT is not set: mobile pushes are skipped',
    });
    expect(logged).toContainEqual({
      level: 30,
      msg: 'MESSENGER_BOT_TOKEN is not set: messenger pushes are skipped',
    });
    expect(logged.filter((l) => l.level >= 40)).toEqual([]);
  });
});

describe('PUSH_SERVICE_ACCOUNT', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'push-account-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Production settings that pass every boot guard, so the service account is all that can fail. */
  const production = (db: TestDatabase, account: string): EnvOverrides => ({
    NODE_ENV: 'production',
    PUSH_SERVICE_ACCOUNT: account,
    DATABASE_URL: db.url,
    REQUIRE_JWT_EXP: '1',
    REQUIRE_OBJECT_STORE: '1',
    S3_BUCKET: 'uploads',
    CORS_ORIGINS: 'https://app.test',
    SUPPORT_ACCESS_TOKEN: 'test-intercom-token',
    SUPPORT_CLIENT_SECRET: 'test-intercom-client-secret',
    PUBLIC_BASE_URL: 'https://support.test',
  });
  /** A chat push to a user with a phone is recorded as not configured. */
  const expectMobileSkipped = async (at: Scenario, started: Awaited<ReturnType<typeof service>>) => {
    await addDevice(at, 'amy', 'mobile', 'amy-phone');
    await started.push.startWorkers(at.store);
    await chat(started.push, 'skipped', 'amy');
    expect((await settled(at.db, 'skipped', 1, 10_000)).not_configured).toBe(1);
  };
  const notAnAccount = async () => {
    const path = join(dir, 'not-an-account.json');
    await writeFile(path, JSON.stringify({ type: 'authorized_user', client_id: 'x' }));
    return path;
  };

  it('naming a missing file: mobile pushes are skipped with a warning, and the service starts (even in production)', async () => {
    const at = await scenario();
    const env = production(at.db, join(dir, 'missing.json'));
    expect(productionGuardFailures(testConfig(env))).toEqual([]);
    const started = await service(at.db, env);
    expect(messages(started.logs)).toContainEqual({
      level: 40,
      msg: 'PUSH_SERVICE_ACCOUNT names no file: mobile pushes are skipped',
    });
    await expectMobileSkipped(at, started);
  });

  it('naming a file that is no service account: production refuses to start, saying PUSH_SERVICE_ACCOUNT', async () => {
    const { db } = await scenario();
    const env = production(db, await notAnAccount());
    expect(productionGuardFailures(testConfig(env))).toEqual([]);
    const logger = createLogger('silent');
    const start = startPush({ config: testConfig(env), pool: db.pool, databaseUrl: db.url, logger });
    await expect(start).rejects.toThrow(/PUSH_SERVICE_ACCOUNT .*not a usable service account/);

    // The same settings with a real service account start.
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const account = join(dir, 'account.json');
    const email = 'push@example.iam.gserviceaccount.com';
    const file = { type: 'service_account', project_id: 'example', client_email: email, private_key: key };
    await writeFile(account, JSON.stringify(file));
    const started = await service(db, production(db, account));
    expect(messages(started.logs).filter((l) => l.level >= 40)).toEqual([]);
  });

  it('naming a file that is no service account outside production: logged, and mobile pushes are skipped', async () => {
    const at = await scenario();
    const started = await service(at.db, {
      NODE_ENV: 'development',
      PUSH_SERVICE_ACCOUNT: await notAnAccount(),
    });
    expect(messages(started.logs)).toContainEqual({
      level: 40,
      msg: 'PUSH_SERVICE_ACCOUNT is not a usable service account: mobile pushes are skipped',
    });
    await expectMobileSkipped(at, started);
  });
});
