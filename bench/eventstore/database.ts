import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrate } from '../../src/db/migrate.ts';
import { databaseUrl } from '../targets.ts';
import type { Teardown } from '../teardown.ts';

export interface BenchDatabase {
  /** A database created for this run (dropped at the end) and migrated. */
  readonly url: string;
  readonly name: string;
  readonly server: 'DATABASE_URL' | 'embedded PostgreSQL';
  /** version, fsync, synchronous_commit, shared_buffers, max_connections as the server reports them. */
  readonly settings: Readonly<Record<string, string>>;
}

const REPORTED_SETTINGS = [
  'server_version',
  'fsync',
  'synchronous_commit',
  'shared_buffers',
  'max_connections',
];

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database on the bench's server (DATABASE_URL, or an embedded cluster), so every run starts
 * from an empty log; it is migrated with the service's own migrations and dropped at the end.
 */
export async function freshDatabase(teardown: Teardown, logger: Logger): Promise<BenchDatabase> {
  const serverUrl = await databaseUrl(teardown, logger);
  const name = `bench_eventstore_${randomBytes(4).toString('hex')}`;
  const settings = await withClient(serverUrl, async (client) => {
    await client.query(`CREATE DATABASE ${name}`);
    const { rows } = await client.query<{ name: string; setting: string }>(
      'SELECT name, current_setting(name) AS setting FROM unnest($1::text[]) AS name',
      [REPORTED_SETTINGS],
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  });
  teardown.add(`database ${name}`, () =>
    withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  );
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrate(url.href, logger);
  return {
    url: url.href,
    name,
    server: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL',
    settings,
  };
}
