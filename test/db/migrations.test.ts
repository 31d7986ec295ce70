import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { MIGRATIONS_TABLE } from '../../src/db/migrate.ts';
import { runAdminSql, withDatabase } from '../support/admin-sql.ts';

const dir = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));
const admin = (statement: string) => runAdminSql(inject('adminDatabaseUrl'), statement);
const migrateTo = (databaseUrl: string, direction: 'up' | 'down', count: number) =>
  runner({
    databaseUrl,
    dir,
    direction,
    count,
    migrationsTable: MIGRATIONS_TABLE,
    checkOrder: true,
    log: () => undefined,
  });

/** How many migrations come before `file`: migrating up that many leaves a database just before it. */
const migrationsBefore = (file: string): number => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  expect(files).toContain(file);
  return files.indexOf(file);
};

/**
 * A database as an earlier release left it, with rows in it, then the migrations this release adds: the
 * rows must survive, under their new names, and the way back must give them back.
 */
describe('the processors migration on a database from before it', () => {
  const name = `svc_migrations_${randomBytes(6).toString('hex')}`;
  let url: string;
  const query = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    url = withDatabase(inject('adminDatabaseUrl'), name);
    // Every migration before the rename: the schema a database of the release before it has.
    await migrateTo(url, 'up', migrationsBefore('1764600000000_reactions-become-processors.sql'));
    await query(`
      INSERT INTO reaction_checkpoints (name, commit_position, prepare_position) VALUES ('pushOnPublish', 41, 42);
      INSERT INTO reaction_dead_letters (reaction, event_id, event_type, stream_name, commit_position,
        prepare_position, attempts, last_error)
      VALUES ('pushOnPublish', '0195e7a4-0000-7000-8000-000000000001', 'postPublished', 'channelPost-1', 7, 7, 5,
        'Error: 503')`);
  });
  afterAll(async () => {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('renames the tables and keeps their checkpoints and dead letters', async () => {
    const applied = await migrateTo(url, 'up', 1);
    expect(applied.map((m) => m.name)).toEqual(['1764600000000_reactions-become-processors']);
    expect(await query('SELECT name, commit_position, prepare_position FROM processor_checkpoints')).toEqual([
      { name: 'pushOnPublish', commit_position: '41', prepare_position: '42' },
    ]);
    expect(await query('SELECT processor, event_type, attempts FROM processor_dead_letters')).toEqual([
      { processor: 'pushOnPublish', event_type: 'postPublished', attempts: 5 },
    ]);
    expect(
      await query(`SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'reaction_%'`),
    ).toEqual([]);
  });

  it('goes back to the old names with the rows, and forward again', async () => {
    await migrateTo(url, 'down', 1);
    expect(await query('SELECT name FROM reaction_checkpoints')).toEqual([{ name: 'pushOnPublish' }]);
    expect(await query('SELECT reaction FROM reaction_dead_letters')).toEqual([
      { reaction: 'pushOnPublish' },
    ]);
    await migrateTo(url, 'up', 1);
    expect(await query('SELECT name FROM processor_checkpoints')).toEqual([{ name: 'pushOnPublish' }]);
  });
});

describe('the push delivery migration on a database from before it', () => {
  const name = `svc_migrations_${randomBytes(6).toString('hex')}`;
  let url: string;
  const query = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(statement)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    url = withDatabase(inject('adminDatabaseUrl'), name);
    await migrateTo(url, 'up', migrationsBefore('1764700000000_push-delivery.sql'));
    await query(`
      INSERT INTO push_log (source_id, user_id, category, conversation_id, csat, outcome)
      VALUES ('n-1', 'u-1', 'chat', 'c-1', false, 'not_configured')`);
  });
  afterAll(async () => {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('keeps the pushes recorded before as replies, and gives them back on the way down', async () => {
    expect((await migrateTo(url, 'up', 1)).map((m) => m.name)).toEqual(['1764700000000_push-delivery']);
    expect(await query('SELECT source_id, user_id, kind, outcome FROM push_log')).toEqual([
      { source_id: 'n-1', user_id: 'u-1', kind: 'reply', outcome: 'not_configured' },
    ]);
    await query(
      `INSERT INTO push_log (source_id, category, kind, outcome) VALUES ('post:p', 'system', 'post', 'queued')`,
    );
    await migrateTo(url, 'down', 1);
    expect(await query('SELECT source_id, user_id FROM push_log')).toEqual([
      { source_id: 'n-1', user_id: 'u-1' },
    ]);
    expect(await query(`SELECT to_regclass('push_deliveries') AS t`)).toEqual([{ t: null }]);
    await migrateTo(url, 'up', 1);
  });
});
