import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabasePool } from '../../src/db/pool.ts';
import { randomBytes } from 'node:crypto';
import { createLogger } from '../../src/http/logger.ts';
import { createEventStore } from '../../src/wiring/event-sourcing.ts';
import { positiveInt, say } from '../env.ts';
import { machine } from '../machine.ts';
import { sourceVersion } from '../source.ts';
import { createTeardown } from '../teardown.ts';
import { appendEmmett, appendOurs, measureAppends } from './appends.ts';
import { analyzeLog, measureCatchUp, measureRebuild, seedDevices } from './catch-up.ts';
import { freshDatabase } from './database.ts';
import { startEmmett } from './emmett.ts';
import { measureLiveLag } from './live-lag.ts';
import {
  invalidities,
  type Parameters,
  renderMarkdown,
  renderSummary,
  type Results,
  verdicts,
} from './report.ts';

/** The code under test, fingerprinted in the report (the tree changes while people work). */
const MEASURED_SOURCE = ['src/events', 'src/projections', 'src/db/migrations'];
const REPORT_FILE = fileURLToPath(new URL('../results/eventstore.md', import.meta.url));

function parameters(): Parameters {
  return {
    writers: positiveInt('BENCH_WRITERS') ?? 8,
    streamLength: positiveInt('BENCH_APPEND_STREAM_LENGTH') ?? 10,
    warmupS: positiveInt('BENCH_WARMUP_S') ?? 2,
    durationS: positiveInt('BENCH_DURATION_S') ?? 5,
    rounds: positiveInt('BENCH_ROUNDS') ?? 3,
    catchUpEvents: positiveInt('BENCH_CATCHUP_EVENTS') ?? 200_000,
    projectionBatch: positiveInt('BENCH_PROJECTION_BATCH'),
    lagRate: positiveInt('BENCH_LAG_RATE') ?? 1_000,
    lagDurationS: positiveInt('BENCH_LAG_DURATION_S') ?? 20,
    lagWriters: positiveInt('BENCH_LAG_WRITERS') ?? 8,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    rebuild: process.env.BENCH_REBUILD !== '0',
    analyze: process.env.BENCH_ANALYZE !== '0',
  };
}

/** `npm run bench -- eventstore`: appends (ours vs. Emmett), catch-up and live lag; resolves the exit code. */
export async function benchEventStore(signal: AbortSignal): Promise<number> {
  const p = parameters();
  const logger = createLogger(p.logLevel);
  const teardown = createTeardown();
  let code = 1;
  try {
    const database = await freshDatabase(teardown, logger);
    // The service's store: PostgreSQL, its personal fields (the device tokens) sealed (decision 048).
    const store = createEventStore({
      config: {
        EVENT_STORE: 'postgres',
        EVENTSTORE_URL: undefined,
        DATA_KEY_SECRET: randomBytes(32).toString('base64url'),
        DATA_KEY_SECRET_PREVIOUS: undefined,
      },
      databaseUrl: database.url,
      logger,
    });
    teardown.add('event store', () => store.close());
    const emmett = await startEmmett(database.url, teardown);
    say(
      `database ${database.name} (${database.server}), PostgreSQL ${database.settings.server_version ?? '?'}`,
    );

    say(
      `appends: ${p.writers} writers, ${p.warmupS} s warm-up per store, then ${p.rounds} alternating rounds ` +
        `of ${p.durationS} s (ours, Emmett)`,
    );
    const appends = await measureAppends(
      { ours: appendOurs(store), emmett: appendEmmett(emmett) },
      { ...p, signal },
    );

    say(`catch-up: seeding ${p.catchUpEvents} device events`);
    const seeded = await seedDevices(store, p.catchUpEvents, p.writers, signal);
    const pool = await createDatabasePool(database.url);
    teardown.add('database pool', () => pool.end());
    if (p.analyze) await analyzeLog(pool);
    say(`catch-up: ${seeded.events} events seeded in ${seeded.seconds.toFixed(1)} s; starting the runner`);
    const { catchUp, devices } = await measureCatchUp({
      pool,
      store,
      connectionString: database.url,
      logger,
      batchSize: p.projectionBatch,
      events: seeded.events,
      signal,
      teardown,
    });

    say(`live lag: ${p.lagRate} events/s for ${p.warmupS} s warm-up + ${p.lagDurationS} s`);
    const lag = await measureLiveLag(store, devices, {
      ratePerSecond: p.lagRate,
      durationS: p.lagDurationS,
      warmupS: p.warmupS,
      writers: p.lagWriters,
      streamLength: p.streamLength,
      signal,
    });

    if (p.rebuild) say('rebuild: devices projection from position zero');
    const rebuild = p.rebuild
      ? await measureRebuild({ pool, store, connectionString: database.url })
      : undefined;

    const results: Results = {
      date: new Date(),
      machine: machine(),
      source: await sourceVersion(MEASURED_SOURCE),
      database,
      appends,
      seeded,
      catchUp,
      lag,
      rebuild,
      expectedRows: { caughtUp: seeded.expectedRows, end: seeded.expectedRows + lag.appended },
    };
    const checks = verdicts(p, results);
    await mkdir(dirname(REPORT_FILE), { recursive: true });
    await writeFile(REPORT_FILE, renderMarkdown(p, results, checks));
    say(`\n${renderSummary(results, checks)}\nreport: ${REPORT_FILE}`);
    // Missed targets are findings; a read model that does not match the log means the numbers lie.
    if (invalidities(results).length === 0) code = 0;
    else process.stderr.write('bench: the read model does not match the log; the run is invalid\n');
  } finally {
    if (!(await teardown.run())) code = 1;
  }
  return code;
}
