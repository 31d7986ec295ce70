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
  const workerIds = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  const wakeAt = (queue: string, at: number) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        const id = workerIds.get(queue);
        if (id !== undefined) given.boss.notifyWorker(id);
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
        const id = workerIds.get(queue);
        if (id !== undefined) given.boss.notifyWorker(id);
      });
  const fanoutId = await deps.boss.work(
    PUSH_QUEUES.fanout,
    { ...polling, localConcurrency: 2 },
    async ([job]) => {
      if (job)
        await guarded(PUSH_QUEUES.fanout, () => fanOut(deps, fanoutJobSchema.parse(job.data), job.signal));
    },
  );
  const mobileId = await deps.boss.work(
    PUSH_QUEUES.mobile,
    { ...polling, localConcurrency: options.mobileConcurrency },
    async ([job]) => {
      if (job) await guarded(PUSH_QUEUES.mobile, () => sendMobileBatch(deps, sendJobSchema.parse(job.data)));
    },
  );
  const messengerId = await deps.boss.work(
    PUSH_QUEUES.messenger,
    { ...polling, localConcurrency: 1 },
    async ([job]) => {
      if (job)
        await guarded(PUSH_QUEUES.messenger, () =>
          sendMessengerBatch(deps, sendJobSchema.parse(job.data), job.signal),
        );
    },
  );
  workerIds.set(PUSH_QUEUES.fanout, fanoutId);
  workerIds.set(PUSH_QUEUES.mobile, mobileId);
  workerIds.set(PUSH_QUEUES.messenger, messengerId);
  return {
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(Object.values(PUSH_QUEUES).map((name) => deps.boss.offWork(name, { wait: true })));
    },
  };
}
