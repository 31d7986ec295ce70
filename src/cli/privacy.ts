import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../db/pool.ts';
import { type ErasureProgress, erasureSteps, latestErasure, requestErasure } from '../db/user-erasures.ts';
import { sleep } from '../lib/abortable.ts';
import { printable } from '../lib/printable.ts';
import { lineText } from '../lib/text-rules.ts';
import { openCliDatabase } from './database.ts';
import { privacyUsage } from './usage.ts';

/** A host user's id, as the admin API takes it. */
const userIdSchema = lineText({ max: 256 });

/** Who asked, in the erasure's record, when a script did (an admin id otherwise). */
const CLI_REQUESTER = 'cli';

const describe = (p: ErasureProgress): string => {
  const done = erasureSteps.filter((s) => p.steps[s] !== undefined);
  const state = p.finishedAt ? `finished ${p.finishedAt}` : `${done.length}/${erasureSteps.length} steps`;
  const failed = p.lastError ? `, last attempt failed (${p.lastError}), attempts ${p.attempts}` : '';
  return `erasure ${p.erasureId} of ${printable(p.userId)}: ${state} [${done.join(', ')}]${failed}`;
};

/**
 * Asks for an erasure as the admin API does, and follows it until the service's erasure job has done it:
 * the job holds the provider client and the storage, so the service (its worker role) must be running.
 */
async function erase(pool: DatabasePool, userId: string, wait: boolean, timeoutMs: number): Promise<void> {
  const { progress, created } = await requestErasure(pool, userId, CLI_REQUESTER);
  process.stdout.write(`${created ? 'asked for' : 'already asked for'}: ${describe(progress)}\n`);
  if (!wait) return;
  const deadline = Date.now() + timeoutMs;
  let last = describe(progress);
  for (;;) {
    const now = await latestErasure(pool, userId);
    if (now === null) throw new Error('the erasure vanished');
    const line = describe(now);
    if (line !== last) process.stdout.write(`${line}\n`);
    last = line;
    if (now.finishedAt !== null) return;
    if (Date.now() > deadline) {
      throw new Error('the erasure is not finished yet: is the service (its worker role) running?');
    }
    await sleep(500, new AbortController().signal);
  }
}

export async function runPrivacyCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  const [sub, id, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { 'no-wait': { type: 'boolean', default: false }, timeout: { type: 'string', default: '300' } },
  });
  const userId = userIdSchema.safeParse(id);
  if ((sub !== 'erase' && sub !== 'erasure') || !userId.success) throw new Error(`usage:\n${privacyUsage}`);
  const timeout = Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout <= 0)
    throw new Error('--timeout must be a positive number of seconds');
  const database = await openCliDatabase(config, logger);
  try {
    await migrate(database.url, logger);
    const pool = await createDatabasePool(database.url, { maximumPoolSize: 2 });
    try {
      if (sub === 'erasure') {
        const progress = await latestErasure(pool, userId.data);
        process.stdout.write(progress ? `${describe(progress)}\n` : 'no erasure was asked for\n');
      } else await erase(pool, userId.data, !values['no-wait'], timeout * 1000);
    } finally {
      await pool.end();
    }
  } finally {
    await database.release();
  }
}
