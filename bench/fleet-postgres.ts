import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { treeCpuSeconds } from './fleet-proc.ts';
import { temporaryDirectory } from './targets.ts';
import type { Teardown } from './teardown.ts';

/** The fleet's own embedded PostgreSQL: pg_stat_statements loaded, its processes known for their CPU. */
export interface Cluster {
  readonly url: string;
  readonly version: string;
  /** The orchestrator's one connection: statement counts, the seeded log. Kept open so no backend starts per reading. */
  readonly client: pg.Client;
  /** CPU seconds of the postmaster and every backend and worker under it. */
  cpuSeconds(): number;
}

async function postmasterPid(clusterDir: string): Promise<number> {
  const pid = Number((await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${clusterDir}`);
  return pid;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  // Ctrl-C reaches PostgreSQL too, which then ends this connection: the next query fails, the process stays.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * src/db/embedded.ts takes no server flags, so the cluster is started once to set
 * `shared_preload_libraries` (ALTER SYSTEM writes postgresql.auto.conf) and started again on the same
 * data, which is how the service's own start would find it. Removed at teardown.
 */
export async function startCluster(teardown: Teardown, logger: Logger): Promise<Cluster> {
  const dir = await temporaryDirectory('svc-bench-fleet-pg-', teardown);
  // Started by root, the cluster runs as the `postgres` user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const first = await startEmbeddedPostgres(dir, logger);
  try {
    const setup = await connect(first.url);
    await setup.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await setup.end();
  } finally {
    await first.stop();
  }
  const cluster = await startEmbeddedPostgres(dir, logger);
  teardown.add('embedded PostgreSQL', () => cluster.stop());
  const client = await connect(cluster.url);
  teardown.add('statistics connection', () => client.end());
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { rows } = await client.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version']);
  const pid = await postmasterPid(join(dir, 'postgres'));
  return {
    url: cluster.url,
    version: rows[0]?.v ?? 'unknown',
    client,
    cpuSeconds: () => treeCpuSeconds(pid),
  };
}

/** Calls so far of each normalised statement of the service's database, by query id. */
export type Statements = ReadonlyMap<string, { readonly query: string; readonly calls: number }>;

export async function readStatements(client: pg.Client): Promise<Statements> {
  const { rows } = await client.query<{ id: string; query: string; calls: string }>(
    `SELECT queryid::text AS id, query, calls::text AS calls FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND query NOT LIKE '%pg_stat_statements%'`,
  );
  return new Map(rows.map((r) => [r.id, { query: r.query, calls: Number(r.calls) }]));
}

export interface StatementDelta {
  readonly total: number;
  /** The most called statements between the two readings, most first (whitespace folded, cut at 160 chars). */
  readonly top: readonly { readonly query: string; readonly calls: number }[];
}

export function statementDelta(before: Statements, after: Statements, topCount = 10): StatementDelta {
  const rows = [...after].map(([id, { query, calls }]) => ({
    query: query.replace(/\s+/g, ' ').trim().slice(0, 160),
    calls: calls - (before.get(id)?.calls ?? 0),
  }));
  const moved = rows.filter((r) => r.calls > 0).sort((a, b) => b.calls - a.calls);
  return { total: moved.reduce((sum, r) => sum + r.calls, 0), top: moved.slice(0, topCount) };
}
