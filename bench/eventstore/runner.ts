import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { DatabasePool } from '../../src/db/pool.ts';
import { type Position, reached } from '../../src/events/envelope.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { createChangeFeed } from '../../src/projections/changes.ts';
import { devicesProjection } from '../../src/projections/devices.ts';
import { type ProjectionRunner, startProjectionRunner } from '../../src/projections/runner.ts';
import { createLeaderLocks } from '../../src/db/leader-lock.ts';

/** A 'progress' event of the runner: when (performance.now() ms) a batch up to `position` committed. */
export interface Progress {
  readonly at: number;
  readonly position: Position;
}

export interface DevicesRunner {
  readonly runner: ProjectionRunner;
  /** Every 'progress' of the devices projection so far, in order. */
  readonly timeline: Progress[];
  /** Resolves the time the checkpoint first reached `target`; rejects after `stallMs` without progress. */
  reach(target: Position, stallMs: number, signal: AbortSignal): Promise<number>;
}

/** The service's projection runner with only the devices projection, as event-sourcing.ts starts it. */
export function startDevicesRunner(options: {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly connectionString: string;
  readonly logger: Logger;
  readonly batchSize: number | undefined;
}): DevicesRunner {
  const locks = createLeaderLocks({ connectionString: options.connectionString, logger: options.logger });
  // Without a connection string the feed hears only this runner: its batches, as they commit.
  const changes = createChangeFeed({ logger: options.logger });
  const runner = startProjectionRunner({
    changes,
    pool: options.pool,
    store: options.store,
    locks,
    projections: [devicesProjection],
    logger: options.logger,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
  const timeline: Progress[] = [];
  changes.events.on('heard', (name, position) => {
    if (name === devicesProjection.name) timeline.push({ at: performance.now(), position });
  });

  const reach = (target: Position, stallMs: number, signal: AbortSignal) =>
    new Promise<number>((resolve, reject) => {
      const last = timeline.at(-1);
      if (last && reached(last.position, target)) {
        resolve(last.at);
        return;
      }
      let stall = setTimeout(onStall, stallMs);
      function finish(settle: () => void) {
        clearTimeout(stall);
        changes.events.off('heard', onProgress);
        signal.removeEventListener('abort', onAbort);
        settle();
      }
      function onStall() {
        finish(() => {
          reject(new Error(`the devices projection made no progress for ${stallMs} ms`));
        });
      }
      function onAbort() {
        finish(() => {
          reject(new Error('interrupted'));
        });
      }
      function onProgress(name: string, position: Position) {
        if (name !== devicesProjection.name) return;
        if (reached(position, target)) {
          // The timeline's listener ran first: its entry is this batch's commit time.
          const at = timeline.at(-1)?.at ?? performance.now();
          finish(() => {
            resolve(at);
          });
          return;
        }
        clearTimeout(stall);
        stall = setTimeout(onStall, stallMs);
      }
      changes.events.on('heard', onProgress);
      signal.addEventListener('abort', onAbort, { once: true });
    });

  const stop = async () => {
    await runner.stop();
    await locks.close();
  };
  return { runner: { ...runner, stop }, timeline, reach };
}
