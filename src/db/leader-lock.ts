import pg from 'pg';
import type { Logger } from 'pino';
import { isAborted, sleep } from '../lib/abortable.ts';
import { describeError } from '../lib/error-text.ts';
import { serial } from './serial.ts';

export interface Leadership {
  /** Aborts when the lock is lost (its connection dropped) or released. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface LeaderLocksOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  /** How often a waiting loop tries again to take over. Default 1 s. */
  readonly retryMs?: number;
  /** How the connection is named in `pg_stat_activity`, so an operator sees which process leads. */
  readonly applicationName?: string;
}

/**
 * The leader locks of one process: session-level advisory locks on ONE connection of their own (the
 * pool's connections are shared and keep no session state), however many loops this process runs. When
 * the process dies, PostgreSQL ends its session, every lock it held is freed, and the next replica's try
 * takes over. A key is held at most once per process too: a session may take its own advisory lock again,
 * so loops of one process that want the same key are kept apart here.
 */
export interface LeaderLocks {
  /** Resolves once this process holds `key`, or null if `signal` aborts first. */
  become(key: string, signal: AbortSignal): Promise<Leadership | null>;
  /** False while the lock connection is lost and not yet made again (true while it is first made). */
  connected(): boolean;
  /** Ends the session: every lock it holds is lost. */
  close(): Promise<void>;
}

interface Session {
  readonly client: pg.Client;
  /** The client's queries, one at a time. */
  readonly query: <T>(task: () => Promise<T>) => Promise<T>;
  /** Aborts when the connection is lost or closed: every leadership on it ends. */
  readonly lost: AbortController;
}

export function createLeaderLocks(options: LeaderLocksOptions): LeaderLocks {
  const { logger } = options;
  const retryMs = options.retryMs ?? 1_000;
  const held = new Set<string>();
  let session: Session | null = null;
  let opening: Promise<Session | null> | null = null;
  let closed = false;
  let down = false;

  const open = (): Promise<Session | null> => {
    opening ??= (async () => {
      const client = new pg.Client({
        connectionString: options.connectionString,
        application_name: options.applicationName ?? 'support-channel-service:leader-locks',
      });
      const lost = new AbortController();
      const drop = () => {
        if (session?.client === client) session = null;
        down = true;
        lost.abort();
      };
      client.on('error', (error) => {
        logger.warn({ reason: describeError(error) }, 'leader locks: connection lost');
        drop();
      });
      client.on('end', drop);
      try {
        await client.connect();
        if (closed) {
          await client.end();
          return null;
        }
        session = { client, lost, query: serial() };
        down = false;
        return session;
      } catch (error) {
        logger.warn({ reason: describeError(error) }, 'leader locks: cannot reach the database; retrying');
        drop();
        await client.end().catch(() => undefined);
        return null;
      } finally {
        opening = null;
      }
    })();
    return opening;
  };

  const tryTake = async (key: string): Promise<Session | null> => {
    if (held.has(key)) return null;
    const current = session ?? (await open());
    if (current === null) return null;
    held.add(key);
    try {
      const { rows } = await current.query(() =>
        current.client.query<{ taken: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken',
          [key],
        ),
      );
      if (rows[0]?.taken && !current.lost.signal.aborted) return current;
    } catch {
      // The connection's own error handler has logged it and dropped the session.
    }
    held.delete(key);
    return null;
  };

  void open();
  return {
    async become(key, signal) {
      while (!isAborted(signal) && !closed) {
        const taken = await tryTake(key);
        if (taken !== null) {
          const lost = new AbortController();
          const end = () => {
            if (lost.signal.aborted) return;
            lost.abort();
            held.delete(key);
          };
          taken.lost.signal.addEventListener('abort', end, { once: true });
          return {
            lost: lost.signal,
            release: async () => {
              if (lost.signal.aborted) return;
              end();
              if (!taken.lost.signal.aborted) {
                await taken
                  .query(() =>
                    taken.client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]),
                  )
                  .catch(() => undefined);
              }
            },
          };
        }
        await sleep(retryMs, signal);
      }
      return null;
    },
    connected: () => session !== null || !down,
    async close() {
      closed = true;
      await opening;
      const current = session;
      session = null;
      current?.lost.abort();
      await current?.client.end().catch(() => undefined);
    },
  };
}

export interface LeaderLoopOptions {
  readonly locks: LeaderLocks;
  readonly key: string;
  readonly logger: Logger;
  /** Names the loop in its log lines: `projection`, `processor`. */
  readonly kind: string;
  readonly name: string;
  /** The first wait after an error in `step`; it doubles up to 10 s. */
  readonly errorBackoffMs?: number;
  /** Told when this process starts and stops leading. */
  readonly onLeadership?: (leading: boolean) => void;
}

const MAX_ERROR_BACKOFF_MS = 10_000;

/**
 * Runs `step` over and over while this process holds the lock, until `signal` aborts. An error in
 * `step` (a lost database, say) backs off and gives up the lock, so another replica may take over;
 * when the lock's connection drops, `leading` aborts and the loop goes back to waiting for the lock.
 */
export async function runAsLeader(
  options: LeaderLoopOptions,
  signal: AbortSignal,
  step: (leading: AbortSignal) => Promise<void>,
): Promise<void> {
  const { logger, kind, name } = options;
  const firstBackoffMs = options.errorBackoffMs ?? 200;
  let backoffMs = firstBackoffMs;
  while (!isAborted(signal)) {
    const leadership = await options.locks.become(options.key, signal);
    if (!leadership) return;
    options.onLeadership?.(true);
    logger.info({ [kind]: name }, `${kind}: active runner here`);
    const leading = AbortSignal.any([signal, leadership.lost]);
    try {
      while (!isAborted(leading)) {
        await step(leading);
        backoffMs = firstBackoffMs;
      }
    } catch (error) {
      if (!isAborted(signal)) {
        logger.warn(
          { [kind]: name, reason: describeError(error), retryInMs: backoffMs },
          `${kind}: retrying after an error`,
        );
        await sleep(backoffMs, signal);
        backoffMs = Math.min(backoffMs * 2, MAX_ERROR_BACKOFF_MS);
      }
    } finally {
      options.onLeadership?.(false);
      await leadership.release();
    }
  }
}
