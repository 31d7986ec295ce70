import { createKurrentDbEventStore } from '../../src/events/store/kurrentdb.ts';
import { createLogger } from '../../src/http/logger.ts';
import { startKurrentDbDouble } from './kurrentdb-double/index.ts';

/** The image docker-compose.yml runs: keep the two the same. */
export const KURRENTDB_IMAGE = 'kurrentplatform/kurrentdb:26.1.1';

const RUNTIME_PROBE_MS = 10_000;
const HOW_TO_RUN =
  'set EVENTSTORE_URL=kurrentdb://127.0.0.1:2113?tls=false (e.g. `docker compose up kurrentdb`) ' +
  'or make a Docker engine available to Testcontainers';

export interface TestKurrentDb {
  readonly connectionString: string;
  /** 'double': the protocol stand-in of test/support/kurrentdb-double, not a KurrentDB server. */
  readonly kind: 'server' | 'double';
  stop(): Promise<void>;
}

/**
 * A KurrentDB for tests: EVENTSTORE_URL when set, otherwise a Testcontainers container when a container
 * runtime answers, otherwise the KurrentDB protocol double (test/support/kurrentdb-double), so that the
 * suites run on every machine. REQUIRE_KURRENTDB=1 asks for a real server: without one, that is a
 * failure instead of the double.
 */
export async function startTestKurrentDb(suite: string): Promise<TestKurrentDb> {
  const unavailable = async (why: string): Promise<TestKurrentDb> => {
    if (process.env.REQUIRE_KURRENTDB === '1') {
      throw new Error(`${suite}: KurrentDB is required (REQUIRE_KURRENTDB=1) but ${why}; ${HOW_TO_RUN}`);
    }
    console.warn(`[double] ${suite}: ${why}; running against the KurrentDB protocol double instead`);
    const double = await startKurrentDbDouble();
    return { connectionString: double.connectionString, kind: 'double', stop: () => double.stop() };
  };

  const url = process.env.EVENTSTORE_URL;
  if (url) {
    // A server named explicitly is wanted: standing in for it with the double would hide that it is down.
    if (!(await answers(url))) throw new Error(`${suite}: KurrentDB at EVENTSTORE_URL=${url} did not answer`);
    return { connectionString: url, kind: 'server', stop: async () => undefined };
  }
  if (!(await containerRuntimeAvailable())) {
    return unavailable('EVENTSTORE_URL is not set and Testcontainers found no container runtime');
  }
  try {
    const { KurrentDbContainer } = await import('@testcontainers/kurrentdb');
    const container = await new KurrentDbContainer(KURRENTDB_IMAGE).start();
    return {
      connectionString: container.getConnectionString(),
      kind: 'server',
      stop: async () => {
        await container.stop();
      },
    };
  } catch (error) {
    return unavailable(`Testcontainers could not start ${KURRENTDB_IMAGE} (${String(error)})`);
  }
}

async function answers(connectionString: string): Promise<boolean> {
  const store = createKurrentDbEventStore({ connectionString, logger: createLogger('silent') });
  try {
    return await store.ping();
  } finally {
    await store.close();
  }
}

/** Testcontainers' own runtime lookup, bounded: a wedged Docker socket must not hang the suite. */
async function containerRuntimeAvailable(): Promise<boolean> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((done) => {
    timer = setTimeout(() => {
      done(false);
    }, RUNTIME_PROBE_MS);
  });
  try {
    return await Promise.race([
      getContainerRuntimeClient().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
