import { setTimeout as sleep } from 'node:timers/promises';
import type { JobWithMetadata } from 'pg-boss';
import type { JobQueue } from '../db/job-queue.ts';
import { fanoutJobSchema, PUSH_QUEUES, sendJobSchema } from './queues.ts';

// A user's push jobs go with the user's erasure (decision 048), through pg-boss's own API: findJobs finds
// the jobs whose data contains the user or a device of theirs (jsonb containment), update() rewrites a
// job's data only while it is still queued, and deleteJob removes one. No SQL of ours in pg-boss's schema.

/** How long an erasure waits for jobs that are being worked and name the user. */
export interface RunningJobsWait {
  readonly pollMs: number;
  readonly polls: number;
}

/** Long enough for a messenger job (about a second of sends) or an FCM batch in flight. */
const DEFAULT_WAIT: RunningJobsWait = { pollMs: 100, polls: 300 };
const PAGE = 1_000;

export interface ErasedJobs {
  /** Jobs that named only this user (or had run): gone. */
  readonly deleted: number;
  /** Queued jobs for other users too: they go on without this user's devices. */
  readonly trimmed: number;
}

interface Pass extends ErasedJobs {
  readonly running: number;
}

type Job = JobWithMetadata<unknown>;

async function findAll(boss: JobQueue, queue: string, data: object): Promise<Job[]> {
  const found: Job[] = [];
  let page = await boss.findJobs<unknown>(queue, { data, limit: PAGE });
  found.push(...page);
  while (page.length === PAGE) {
    page = await boss.findJobs<unknown>(queue, { data, limit: PAGE, after: page.at(-1)?.id ?? '' });
    found.push(...page);
  }
  return found;
}

/** The job's data without the user and their devices; null when nothing is left to do (or it is no push job). */
function without(queue: string, data: unknown, userId: string, keys: ReadonlySet<string>): object | null {
  if (queue === PUSH_QUEUES.fanout) {
    const job = fanoutJobSchema.safeParse(data);
    const userIds = job.data?.userIds?.filter((u) => u !== userId) ?? [];
    return job.success && userIds.length > 0 ? { ...job.data, userIds } : null;
  }
  const job = sendJobSchema.safeParse(data);
  const devices = job.data?.devices.filter((d) => d.userId !== userId && !keys.has(d.key)) ?? [];
  return job.success && devices.length > 0 ? { ...job.data, devices } : null;
}

/** One look at every push queue: what names the user is deleted or trimmed; running jobs are counted. */
async function erasePass(boss: JobQueue, userId: string, keys: ReadonlySet<string>): Promise<Pass> {
  const devices = [{ devices: [{ userId }] }, ...[...keys].map((key) => ({ devices: [{ key }] }))];
  const patterns: [string, object[]][] = [
    [PUSH_QUEUES.fanout, [{ userIds: [userId] }]],
    [PUSH_QUEUES.mobile, devices],
    [PUSH_QUEUES.messenger, devices],
  ];
  let [deleted, trimmed, running] = [0, 0, 0];
  for (const [queue, datas] of patterns) {
    const jobs = new Map<string, Job>();
    for (const data of datas) for (const job of await findAll(boss, queue, data)) jobs.set(job.id, job);
    const gone: string[] = [];
    for (const job of jobs.values()) {
      if (job.state === 'active') {
        running += 1;
        continue;
      }
      // A job that has run keeps its data a day (deleteAfterSeconds), the user's devices in it: it goes.
      const queued = job.state === 'created' || job.state === 'retry';
      const rest = queued ? without(queue, job.data, userId, keys) : null;
      if (rest === null) gone.push(job.id);
      // update() leaves a job that started meanwhile as it is: the next pass waits for it.
      else if ((await boss.update(queue, rest, { id: job.id })).updated === 1) trimmed += 1;
      else running += 1;
    }
    if (gone.length > 0) await boss.deleteJob(queue, gone);
    deleted += gone.length;
  }
  return { deleted, trimmed, running };
}

/**
 * Deletes or trims every push job that names the user or one of their devices (by device key), then
 * waits for the ones being worked to end and looks again: a send in hand may queue a retry of the
 * user's devices. When it resolves, no job names them. Rejects when jobs naming them are still worked
 * after the wait; running it again is safe.
 */
export async function eraseUserJobs(
  boss: JobQueue,
  userId: string,
  keys: ReadonlySet<string>,
  wait: RunningJobsWait = DEFAULT_WAIT,
): Promise<ErasedJobs> {
  let [deleted, trimmed] = [0, 0];
  for (let poll = 0; ; poll++) {
    const pass = await erasePass(boss, userId, keys);
    deleted += pass.deleted;
    trimmed += pass.trimmed;
    if (pass.running === 0) return { deleted, trimmed };
    if (poll >= wait.polls)
      throw new Error(`${pass.running} push jobs naming the erased user are still worked`);
    await sleep(wait.pollMs);
  }
}
