import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Registry } from 'prom-client';
import { sql } from 'slonik';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Position } from '../../src/events/envelope.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { createLogger } from '../../src/http/logger.ts';
import { readProcessorCheckpoint } from '../../src/processors/checkpoints.ts';
import { type Processor, ProcessorError } from '../../src/processors/processor.ts';
import {
  type ProcessorRunner,
  type ProcessorRunnerOptions,
  startProcessorRunner,
} from '../../src/processors/runner.ts';
import { useTestDatabase } from '../support/database.ts';
import { repoRoot, spawnService } from '../support/process.ts';
import { freshCategory, testEvent } from '../events/store/contract.ts';
import { replicaLocks } from '../support/replica.ts';

/** What the loopback side-effect target received: every request, and the effects it applied once per key. */
interface Delivery {
  readonly key: string;
  readonly type: string;
  readonly attempt: number;
  readonly runner: string;
}

interface Target {
  readonly url: string;
  /** Every request, duplicates and failed ones included, in arrival order. */
  readonly deliveries: Delivery[];
  /** Idempotency keys in the order their effect was applied; a repeated key applies nothing. */
  readonly applied: string[];
  /** Answers 503 to the next `times` requests with this key (Infinity: always). */
  failFor(key: string, times: number): void;
  /** Answers 422 to this key: a request no retry will fix. */
  reject(key: string): void;
  /** Applies the next `times` requests with this key but never answers them (the caller dies waiting). */
  holdAnswer(key: string, times?: number): void;
  deliveriesOf(key: string): Delivery[];
  close(): Promise<void>;
}

/**
 * A stand-in for a push service or provider API, deduplicating by the Idempotency-Key header as such
 * services do: a retried request with a key it has applied already answers success and changes nothing.
 */
async function startTarget(): Promise<Target> {
  const deliveries: Delivery[] = [];
  const applied: string[] = [];
  const failures = new Map<string, number>();
  const rejected = new Set<string>();
  const held = new Map<string, number>();
  const waiting: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string') {
        res.writeHead(400).end();
        return;
      }
      const body = z
        .object({ type: z.string(), attempt: z.number() })
        .parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      deliveries.push({ key, ...body, runner: String(req.headers['x-runner']) });
      const left = failures.get(key) ?? 0;
      if (left > 0) {
        failures.set(key, left - 1);
        res.writeHead(503).end();
        return;
      }
      if (rejected.has(key)) {
        res.writeHead(422).end();
        return;
      }
      if (!applied.includes(key)) applied.push(key);
      const holds = held.get(key) ?? 0;
      if (holds > 0) {
        held.set(key, holds - 1);
        waiting.push(res);
        return;
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/effects`,
    deliveries,
    applied,
    failFor: (key, times) => failures.set(key, times),
    reject: (key) => rejected.add(key),
    holdAnswer: (key, times = 1) => held.set(key, times),
    deliveriesOf: (key) => deliveries.filter((d) => d.key === key),
    close: async () => {
      for (const res of waiting) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => {
        server.close(() => {
          done();
        });
      });
    },
  };
}

/** A processor as later issues will write them: one HTTP call, the event id as its idempotency key. */
function httpProcessor(
  target: Target,
  fields: Pick<Processor, 'name' | 'categories'> & Partial<Processor>,
  runner = 'main',
): Processor {
  return {
    startFrom: 'beginning',
    ...fields,
    async process(event, context) {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': context.idempotencyKey,
          'x-runner': runner,
        },
        body: JSON.stringify({ type: event.type, attempt: context.attempt, data: event.data }),
        signal: context.signal,
      });
      await response.body?.cancel();
      if (response.status >= 400 && response.status < 500) {
        throw new ProcessorError(`target refused the request (${response.status})`, { permanent: true });
      }
      if (!response.ok) throw new Error(`target answered ${response.status}`);
    },
  };
}

const SECRET = 'secret-comment-text-7f3a';
const eventually = { timeout: 15_000, interval: 20 };
const fastRetries = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

describe('processor runner', () => {
  const db = useTestDatabase();
  const silent = createLogger('silent');
  let store: EventStore;
  let target: Target;
  const running: ProcessorRunner[] = [];
  const logLines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });

  beforeAll(async () => {
    store = createPostgresEventStore({ connectionString: db.url, logger: silent, recheckIntervalMs: 50 });
    target = await startTarget();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await target.close();
    await store.close();
  });

  const start = (processors: Processor[], extra: Partial<ProcessorRunnerOptions> = {}): ProcessorRunner => {
    const locks = replicaLocks(db.url, 50);
    const runner = startProcessorRunner({
      pool: db.pool,
      store,
      locks,
      processors,
      logger,
      errorBackoffMs: 20,
      retry: fastRetries,
      ...extra,
    });
    running.push({
      ...runner,
      stop: async () => {
        await runner.stop();
        await locks.close();
      },
    });
    return runner;
  };

  const append = async (stream: string, type: string, data: Record<string, unknown> = {}) => {
    const event = testEvent(type, data);
    const { position } = await store.append(stream, [event], 'any');
    return { id: event.id, position };
  };

  const checkpointOf = (name: string) => readProcessorCheckpoint(db.pool, name);

  const metric = async (registry: Registry, name: string, processor: string): Promise<number | undefined> => {
    const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
    return values.find((v) => v.labels.processor === processor)?.value;
  };

  it('reacts to every event of its categories and types once, in order, and moves its checkpoint', async () => {
    const category = freshCategory();
    const other = freshCategory();
    const name = `r-${category}`;
    const registry = new Registry();
    const first = await append(`${category}-1`, 'wanted');
    const skipped = await append(`${category}-1`, 'unwanted');
    const second = await append(`${category}-2`, 'wanted');
    const elsewhere = await append(`${other}-1`, 'wanted');
    start([httpProcessor(target, { name, categories: [category], handles: ['wanted'] })], { registry });

    // Live events after the catch-up; the last one is skipped, and the checkpoint must pass it all the same.
    const third = await append(`${category}-1`, 'wanted');
    const lastSkipped = await append(`${category}-3`, 'unwanted');
    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(lastSkipped.position);
    }, eventually);

    const ours = target.applied.filter((key) =>
      [first, second, third, elsewhere, skipped].some((e) => e.id === key),
    );
    expect(ours).toEqual([first.id, second.id, third.id]);
    for (const event of [first, second, third]) expect(target.deliveriesOf(event.id)).toHaveLength(1);
    expect(target.deliveriesOf(elsewhere.id)).toHaveLength(0);
    expect(target.deliveriesOf(skipped.id)).toHaveLength(0);
    expect(await metric(registry, 'processor_events_handled_total', name)).toBe(3);
    expect(await metric(registry, 'processor_attempt_failures_total', name)).toBeUndefined();
    expect(await metric(registry, 'processor_dead_letters', name)).toBe(0);
    expect(await metric(registry, 'processor_lag_seconds', name)).toBe(0);
  });

  it('starts after the newest event when a processor first runs, unless told to start at the beginning', async () => {
    const category = freshCategory();
    const old = await append(`${category}-1`, 'wanted');
    const fromNow = `now-${category}`;
    const fromStart = `start-${category}`;
    start([
      httpProcessor(target, { name: fromNow, categories: [category], startFrom: 'now' }, 'now'),
      httpProcessor(target, { name: fromStart, categories: [category], startFrom: 'beginning' }, 'start'),
    ]);
    await vi.waitFor(async () => {
      expect(await checkpointOf(fromNow)).toEqual(old.position);
    }, eventually);
    const fresh = await append(`${category}-1`, 'wanted');
    await vi.waitFor(() => {
      expect(
        target
          .deliveriesOf(fresh.id)
          .map((d) => d.runner)
          .sort(),
      ).toEqual(['now', 'start']);
    }, eventually);
    expect(target.deliveriesOf(old.id).map((d) => d.runner)).toEqual(['start']);
  });

  it('retries a failing side effect with backoff until it succeeds, with the same idempotency key', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    const registry = new Registry();
    const flaky = testEvent('wanted');
    target.failFor(flaky.id, 2);
    const { position } = await store.append(`${category}-1`, [flaky], 'any');
    start([httpProcessor(target, { name, categories: [category] })], { registry });

    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(position);
    }, eventually);
    expect(target.deliveriesOf(flaky.id).map((d) => d.attempt)).toEqual([1, 2, 3]);
    expect(target.applied.filter((key) => key === flaky.id)).toHaveLength(1);
    expect(await metric(registry, 'processor_attempt_failures_total', name)).toBe(2);
    expect(await metric(registry, 'processor_events_handled_total', name)).toBe(1);
    expect(await metric(registry, 'processor_dead_letters', name)).toBe(0);
    const retries = logLines
      .map(
        (line) => JSON.parse(line) as { eventId?: string; msg: string; attempt?: number; retryInMs?: number },
      )
      .filter((l) => l.eventId === flaky.id && l.msg.includes('retrying'));
    expect(retries.map((l) => l.attempt)).toEqual([1, 2]);
    for (const line of retries) expect(line.retryInMs).toBeGreaterThan(0);
  });

  it('dead-letters an event after the last attempt, shows it in the metrics, and goes on', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    const registry = new Registry();
    const poison = testEvent('wanted', { text: SECRET });
    target.failFor(poison.id, Infinity);
    const { position: poisonAt } = await store.append(`${category}-1`, [poison], 'any');
    const after = await append(`${category}-2`, 'wanted');
    start([httpProcessor(target, { name, categories: [category] })], { registry });

    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(after.position);
    }, eventually);
    expect(target.deliveriesOf(poison.id)).toHaveLength(fastRetries.maxAttempts);
    expect(target.applied).toContain(after.id);
    expect(target.applied).not.toContain(poison.id);

    const letters = await db.pool.any(sql.type(
      z.object({
        processor: z.string(),
        event_id: z.string(),
        event_type: z.string(),
        stream_name: z.string(),
        commit_position: z.coerce.bigint(),
        prepare_position: z.coerce.bigint(),
        attempts: z.number(),
        last_error: z.string(),
      }),
    )`SELECT processor, event_id, event_type, stream_name, commit_position, prepare_position, attempts, last_error
      FROM processor_dead_letters WHERE processor = ${name}`);
    expect(letters).toEqual([
      {
        processor: name,
        event_id: poison.id,
        event_type: 'wanted',
        stream_name: `${category}-1`,
        commit_position: poisonAt.commit,
        prepare_position: poisonAt.prepare,
        attempts: fastRetries.maxAttempts,
        last_error: 'Error: target answered 503',
      },
    ]);
    expect(await metric(registry, 'processor_dead_letters', name)).toBe(1);
    expect(await metric(registry, 'processor_attempt_failures_total', name)).toBe(fastRetries.maxAttempts);
    expect(await metric(registry, 'processor_events_handled_total', name)).toBe(1);
    // The event's data went to the target (that is the side effect) and nowhere else.
    expect(logLines.join('\n')).not.toContain(SECRET);
    expect(logLines.join('\n')).toContain(poison.id);
  });

  it('gives up at once on an error the processor marks as permanent', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    const refused = testEvent('wanted');
    target.reject(refused.id);
    const { position } = await store.append(`${category}-1`, [refused], 'any');
    start([httpProcessor(target, { name, categories: [category] })], {
      retry: { ...fastRetries, maxAttempts: 5 },
    });

    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(position);
    }, eventually);
    expect(target.deliveriesOf(refused.id)).toHaveLength(1);
    const attempts = await db.pool.oneFirst(sql.type(z.object({ attempts: z.number() }))`
      SELECT attempts FROM processor_dead_letters WHERE processor = ${name} AND event_id = ${refused.id}`);
    expect(attempts).toBe(1);
  });

  it('stops promptly in the middle of a long backoff, leaving the event to be tried again', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    const registry = new Registry();
    const failing = testEvent('wanted');
    target.failFor(failing.id, Infinity);
    await store.append(`${category}-1`, [failing], 'any');
    const runner = start([httpProcessor(target, { name, categories: [category] })], {
      registry,
      retry: { maxAttempts: 5, baseDelayMs: 600_000, maxDelayMs: 600_000 },
    });
    await vi.waitFor(() => {
      expect(target.deliveriesOf(failing.id)).toHaveLength(1);
    }, eventually);

    await runner.stop();
    expect(runner.isLeader(name)).toBe(false);
    expect(await checkpointOf(name)).toBeNull();
    const letters = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM processor_dead_letters WHERE processor = ${name}`);
    expect(letters).toBe(0);
    // Its metrics went with it, so a new runner can register them again.
    expect(registry.getSingleMetric('processor_dead_letters')).toBeUndefined();
    expect(registry.getSingleMetric('processor_events_handled_total')).toBeUndefined();
  });

  it('counts an attempt that gets no answer in time as failed', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    const hanging = testEvent('wanted');
    target.holdAnswer(hanging.id, Infinity);
    await store.append(`${category}-1`, [hanging], 'any');
    const after = await append(`${category}-1`, 'wanted');
    start([httpProcessor(target, { name, categories: [category] })], {
      attemptTimeoutMs: 100,
      retry: { ...fastRetries, maxAttempts: 2 },
    });

    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(after.position);
    }, eventually);
    expect(target.deliveriesOf(hanging.id)).toHaveLength(2);
    const lastError = await db.pool.oneFirst(sql.type(z.object({ last_error: z.string() }))`
      SELECT last_error FROM processor_dead_letters WHERE processor = ${name} AND event_id = ${hanging.id}`);
    expect(lastError).toMatch(/^TimeoutError: /);
  });

  it('stops without waiting for a processor that ignores its signal', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    let calls = 0;
    await append(`${category}-1`, 'wanted');
    const runner = start([
      {
        name,
        categories: [category],
        startFrom: 'beginning',
        process: () => {
          calls++;
          return new Promise<void>(() => undefined);
        },
      },
    ]);
    await vi.waitFor(() => {
      expect(calls).toBe(1);
    }, eventually);

    await runner.stop();
    expect(await checkpointOf(name)).toBeNull();
  });

  describe('at least once across a crash', () => {
    /**
     * An event whose side effect the target applies without ever answering (so the runner dies after the
     * side effect, before it could learn of its success and move the checkpoint), and one after it.
     */
    async function crashAfterSideEffect() {
      const category = freshCategory();
      const crashing = testEvent('wanted');
      target.holdAnswer(crashing.id);
      await store.append(`${category}-1`, [crashing], 'any');
      const later = await append(`${category}-1`, 'wanted');
      return { category, name: `r-${category}`, crashing, later };
    }

    it('re-sends a side effect whose runner stopped before moving the checkpoint; the target applies it once', async () => {
      const { category, name, crashing, later } = await crashAfterSideEffect();
      const first = start([httpProcessor(target, { name, categories: [category] }, 'first')]);
      await vi.waitFor(() => {
        expect(target.applied).toContain(crashing.id);
      }, eventually);

      await first.stop();
      expect(await checkpointOf(name)).toBeNull();

      start([httpProcessor(target, { name, categories: [category] }, 'second')]);
      await vi.waitFor(async () => {
        expect(await checkpointOf(name)).toEqual(later.position);
      }, eventually);
      expect(target.deliveriesOf(crashing.id).map((d) => [d.runner, d.key])).toEqual([
        ['first', crashing.id],
        ['second', crashing.id],
      ]);
      expect(target.applied.filter((key) => key === crashing.id)).toHaveLength(1);
      expect(target.deliveriesOf(later.id).map((d) => d.runner)).toEqual(['second']);
    });

    it('survives the process being killed after the side effect: another process takes over and re-sends', async () => {
      const { category, name, crashing, later } = await crashAfterSideEffect();
      const child = spawnService(
        process.execPath,
        ['--input-type=module', '-e', childRunner(db.url, name, category, target.url)],
        {},
      );
      try {
        await vi.waitFor(() => {
          expect(target.applied).toContain(crashing.id);
        }, eventually);
        // A standby in this process, waiting for the lock the child holds.
        const standby = start([httpProcessor(target, { name, categories: [category] }, 'standby')]);
        expect(await checkpointOf(name)).toBeNull();
        child.child.kill('SIGKILL');
        expect(await child.exited).toBe('SIGKILL');

        await vi.waitFor(async () => {
          expect(await checkpointOf(name)).toEqual(later.position);
        }, eventually);
        expect(standby.isLeader(name)).toBe(true);
        expect(target.deliveriesOf(crashing.id).map((d) => d.runner)).toEqual(['child', 'standby']);
        expect(target.applied.filter((key) => key === crashing.id)).toHaveLength(1);
      } finally {
        child.child.kill('SIGKILL');
      }
    });
  });

  it('runs one processor in one runner only; when it stops, the other takes over from the checkpoint', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    const a = start([httpProcessor(target, { name, categories: [category] }, 'a')]);
    const b = start([httpProcessor(target, { name, categories: [category] }, 'b')]);
    await vi.waitFor(() => {
      expect([a.isLeader(name), b.isLeader(name)].filter(Boolean)).toHaveLength(1);
    }, eventually);
    const [leader, standby, leaderLabel, standbyLabel] = a.isLeader(name)
      ? [a, b, 'a', 'b']
      : [b, a, 'b', 'a'];

    const e1 = await append(`${category}-1`, 'wanted');
    const e2 = await append(`${category}-2`, 'wanted');
    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(e2.position);
    }, eventually);
    expect(standby.isLeader(name)).toBe(false);

    await leader.stop();
    await vi.waitFor(() => {
      expect(standby.isLeader(name)).toBe(true);
    }, eventually);
    const e3 = await append(`${category}-1`, 'wanted');
    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(e3.position);
    }, eventually);

    const ours = (id: string) => target.deliveriesOf(id).map((d) => d.runner);
    expect(ours(e1.id)).toEqual([leaderLabel]);
    expect(ours(e2.id)).toEqual([leaderLabel]);
    expect(ours(e3.id)).toEqual([standbyLabel]);
  });

  it('rides out its database connections being cut, and carries on from the checkpoint', async () => {
    const category = freshCategory();
    const name = `r-${category}`;
    const runner = start([httpProcessor(target, { name, categories: [category] })]);
    const before = await append(`${category}-1`, 'wanted');
    await vi.waitFor(async () => {
      expect(await checkpointOf(name)).toEqual(before.position);
    }, eventually);

    await terminateOtherSessions(db.url);
    let after: { id: string; position: Position } | undefined;
    await vi.waitFor(async () => {
      // The store's pool may hand out a connection that was just cut: try again, as a caller would.
      after ??= await append(`${category}-1`, 'wanted');
      expect(await checkpointOf(name)).toEqual(after.position);
    }, eventually);
    expect(runner.isLeader(name)).toBe(true);
    expect(target.deliveriesOf(before.id)).toHaveLength(1);
  });

  it('refuses processors it could not run as declared', async () => {
    const processNothing = () => Promise.resolve();
    const options = { pool: db.pool, store, locks: replicaLocks(db.url), logger: silent };
    expect(() =>
      startProcessorRunner({
        ...options,
        processors: [{ name: 'Bad Name', categories: ['x'], process: processNothing }],
      }),
    ).toThrow();
    expect(() =>
      startProcessorRunner({
        ...options,
        processors: [{ name: 'none', categories: [], process: processNothing }],
      }),
    ).toThrow();
    expect(() =>
      startProcessorRunner({
        ...options,
        processors: [
          { name: 'twice', categories: ['x'], process: processNothing },
          { name: 'twice', categories: ['y'], process: processNothing },
        ],
      }),
    ).toThrow();
    await options.locks.close();
  });
});

/** Ends every other session on the test database, as a failover or a network cut would. */
async function terminateOtherSessions(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
  } finally {
    await client.end();
  }
}

/** A separate Node process running the same processor against the same database, to be killed with SIGKILL. */
function childRunner(databaseUrl: string, name: string, category: string, targetUrl: string): string {
  const src = (path: string) => JSON.stringify(pathToFileURL(`${repoRoot}src/${path}`).href);
  return `
    const { startProcessorRunner } = await import(${src('processors/runner.ts')});
    const { createPostgresEventStore } = await import(${src('events/store/postgres.ts')});
    const { createDatabasePool } = await import(${src('db/pool.ts')});
    const { createLogger } = await import(${src('http/logger.ts')});
    const { createLeaderLocks } = await import(${src('db/leader-lock.ts')});
    const url = ${JSON.stringify(databaseUrl)};
    const logger = createLogger('silent');
    const store = createPostgresEventStore({ connectionString: url, logger, recheckIntervalMs: 50 });
    const pool = await createDatabasePool(url, { maximumPoolSize: 2 });
    startProcessorRunner({
      pool, store, logger, locks: createLeaderLocks({ connectionString: url, logger, retryMs: 50 }),
      processors: [{
        name: ${JSON.stringify(name)},
        categories: [${JSON.stringify(category)}],
        startFrom: 'beginning',
        async process(event, context) {
          const response = await fetch(${JSON.stringify(targetUrl)}, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': context.idempotencyKey, 'x-runner': 'child' },
            body: JSON.stringify({ type: event.type, attempt: context.attempt }),
            signal: context.signal,
          });
          if (!response.ok) throw new Error('target answered ' + response.status);
        },
      }],
    });
    setInterval(() => {}, 60_000);
  `;
}
