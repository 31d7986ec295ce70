import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';
import { installJobQueue } from './job-queue.ts';

export const MIGRATIONS_TABLE = 'pgmigrations';
const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * Applies every pending migration, then creates or migrates the job queue's schema. node-pg-migrate and
 * pg-boss each take an advisory lock and wait for it, so replicas that start together apply each
 * migration once.
 */
export async function migrate(databaseUrl: string, logger: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: MIGRATIONS_TABLE,
    checkOrder: true,
    singleTransaction: true,
    // Replicas starting together wait for the first one's run (and then find nothing to do) instead of
    // failing to start.
    advisoryLockMode: 'wait',
    log: (msg: string) => {
      logger.debug({ migration: msg }, 'migration');
    },
  });
  const names = applied.map((m) => m.name);
  if (names.length > 0) logger.info({ migrations: names }, 'migrations applied');
  await installJobQueue(databaseUrl, logger);
  return names;
}
