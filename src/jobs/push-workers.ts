import type { Job } from 'pg-boss';
import { describeError } from '../lib/error-text.ts';
import { fanoutJobSchema, PUSH_QUEUES, sendJobSchema } from '../push/queues.ts';
import type { PushWorkerDeps } from './push-context.ts';
import { fanOut } from './push-fanout.ts';
import { sendMessengerBatch } from './push-messenger.ts';
import { sendMobileBatch } from './push-mobile.ts';

export interface PushWorkers {
  stop(): Promise<void>;
}

export interface PushWorkerOptions {
  /** Mobile batches this process sends at once (PUSH_WORKERS). */
  readonly mobileConcurrency: number;
  /**
   * How often each worker looks for jobs nobody announced (30 s): ones the queue itself retries after a
   * failure or a dead worker. Tests of crashes look every 2 s.
   */
  readonly backstopPollSeconds?: number;
}

/**
 * Works the push queues on this replica: fan-outs, mobile batches (several at once, on every replica) and
 * messenger jobs (one at a time in the whole group: the queue is a singleton). A job that throws is
 * retried by the queue with backoff; one whose worker died (its heartbeat stopped) is offered again.
 */
export async function startPushWorkers(
  given: Omit<PushWorkerDeps, 'wakeAt'>,
  options: PushWorkerOptions,
): Promise<PushWorkers> {
  // New jobs wake the workers through NOTIFY, and deferred ones the timer of the replica that deferred
  // them; the polls are a backstop (every 30 s; every 2 s while NOTIFY is unavailable).
  const backstop = options.backstopPollSeconds ?? 30;
  const polling = { pollingIntervalSeconds: Math.min(2, backstop), notifyPollingIntervalSeconds: backstop };
  const workerIds = new Map<string, string[]>();
  const wake = (queue: string) => {
    for (const id of workerIds.get(queue) ?? []) given.boss.notifyWorker(id);
  };
  const timers = new Set<NodeJS.Timeout>();
  const wakeAt = (queue: string, at: number) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        wake(queue);
      },
      Math.max(0, at - Date.now()) + 20,
    );
    timer.unref();
    timers.add(timer);
  };
  const deps: PushWorkerDeps = { ...given, wakeAt };
  // A worker that finished a job looks for the next one at once: with one job per fetch, pg-boss would
  // otherwise wait for its next poll, and a queue drained by one worker (the messenger's) would crawl.
  const guarded = (queue: string, work: () => Promise<void>) =>
    work()
      .catch((error: unknown) => {
        deps.logger.warn(
          { queue, error: describeError(error) },
          'push: job failed; the queue tries it again',
        );
        throw error;
      })
      .finally(() => {
        wake(queue);
      });
  // One pg-boss worker per slot, not one with local concurrency: pg-boss wakes a worker by its id, and
  // with local concurrency only the first slot has one to wake.
  const slots = async (queue: string, count: number, handle: (job: Job<unknown>) => Promise<void>) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(
        await deps.boss.work(queue, polling, async ([job]) => {
          if (job) await guarded(queue, () => handle(job));
        }),
      );
    }
    workerIds.set(queue, ids);
  };
  await slots(PUSH_QUEUES.fanout, 2, (job) => fanOut(deps, fanoutJobSchema.parse(job.data), job.signal));
  await slots(PUSH_QUEUES.mobile, options.mobileConcurrency, (job) =>
    sendMobileBatch(deps, sendJobSchema.parse(job.data)),
  );
  await slots(PUSH_QUEUES.messenger, 1, (job) =>
    sendMessengerBatch(deps, sendJobSchema.parse(job.data), job.signal),
  );
  return {
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(Object.values(PUSH_QUEUES).map((name) => deps.boss.offWork(name, { wait: true })));
    },
  };
}
