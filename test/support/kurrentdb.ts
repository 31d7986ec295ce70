import { createKurrentDbEventStore } from '../../src/events/store/kurrentdb.ts';
import { createLogger } from '../../src/http/logger.ts';

/** The image docker-compose.yml runs: keep the two the same. */
export const KURRENTDB_IMAGE = 'kurrentplatform/kurrentdb:26.1.1';

const RUNTIME_PROBE_MS = 10_000;
const HOW_TO_RUN =
  'set EVENTSTORE_URL=kurrentdb://127.0.0.1:2113?tls=false (e.g. `docker compose up kurrentdb`) ' +
  'or make a Docker engine available to Testcontainers';

export interface TestKurrentDb {
  readonly connectionString: string;
  stop(): Promise<void>;
}

/**
 * A KurrentDB server for tests: EVENTSTORE_URL when set, otherwise a Testcontainers container when a
 * container runtime answers. Without either the suite skips with one message, except under
 * REQUIRE_KURRENTDB=1 (CI), where a missing server is a failure.
 */
export async function startTestKurrentDb(suite: string): Promise<TestKurrentDb | null> {
  const unavailable = (why: string): null => {
    if (process.env.REQUIRE_KURRENTDB === '1') {
      throw new Error(`${suite}: KurrentDB is required (REQUIRE_KURRENTDB=1) but ${why}; ${HOW_TO_RUN}`);
    }
    console.warn(`[skip] ${suite}: ${why}; to run it, ${HOW_TO_RUN}`);
    return null;
  };

  const url = process.env.EVENTSTORE_URL;
  if (url) {
    return (await answers(url))
      ? { connectionString: url, stop: async () => undefined }
      : unavailable(`KurrentDB at EVENTSTORE_URL=${url} did not answer`);
  }
  if (!(await containerRuntimeAvailable())) {
    return unavailable('EVENTSTORE_URL is not set and Testcontainers found no container runtime');
  }
  try {
    const { KurrentDbContainer } = await import('@testcontainers/kurrentdb');
    const container = await new KurrentDbContainer(KURRENTDB_IMAGE).start();
    return {
      connectionString: container.getConnectionString(),
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
