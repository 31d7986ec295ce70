import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/http/logger.ts';
import { runAdminSql as admin, withDatabase } from './admin-sql.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL with the right to CREATE DATABASE; each test file makes its own database from the template. */
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

/**
 * Real PostgreSQL for every test: TEST_DATABASE_URL or DATABASE_URL when set, otherwise an embedded
 * cluster in a temporary directory. Migrations run once, into a template database that each test
 * file copies (cheap, and files cannot see each other's rows).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const logger = createLogger('warn');
  let embedded: EmbeddedDatabase | undefined;
  let scratch: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!adminUrl) {
    scratch = await mkdtemp(join(tmpdir(), 'svc-test-pg-'));
    // The cluster runs as the `postgres` user when tests run as root; it must be able to enter here.
    await chmod(scratch, 0o755);
    embedded = await startEmbeddedPostgres(scratch, logger);
    adminUrl = embedded.url;
  }
  const template = `svc_template_${process.pid}`;
  await admin(adminUrl, `DROP DATABASE IF EXISTS ${template}`);
  await admin(adminUrl, `CREATE DATABASE ${template}`);
  await migrate(withDatabase(adminUrl, template), logger);

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);

  return async () => {
    await admin(adminUrl, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
    await embedded?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  };
}
