import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { describeError } from '../lib/error-text.ts';

// The durable job queue (pg-boss, decision 025): jobs are rows in PostgreSQL's `pgboss` schema, so a crash,
// a restart or a second replica neither loses nor runs a job twice beyond at-least-once.

export type JobQueue = PgBoss;

export interface JobQueueOptions {
  readonly connectionString: string;
  readonly logger: Logger;
  /** Connections of the queue's own pool (pg-boss keeps its own, beside the service's). */
  readonly maxConnections?: number;
  /**
   * How often expired jobs are reclaimed and queues maintained, in seconds (60 by default). Tests of a
   * crashed worker set 1, so a job whose worker died is offered again within seconds.
   */
  readonly superviseIntervalSeconds?: number;
  /** False: this process only sends jobs, and leaves the queue's upkeep to those that work it. Default true. */
  readonly supervise?: boolean;
}

const SCHEMA = 'pgboss';

const construct = (options: JobQueueOptions, extra: { supervise: boolean }) =>
  new PgBoss({
    connectionString: options.connectionString,
    schema: SCHEMA,
    max: options.maxConnections ?? 4,
    application_name: 'support-channel-service:jobs',
    // Cron scheduling and job flows are not used (the leader-locked jobs of src/jobs keep their own
    // loops): flows are looked for rarely, so an idle service stays quiet.
    schedule: false,
    flowIntervalSeconds: 600,
    supervise: extra.supervise,
    ...(options.superviseIntervalSeconds === undefined
      ? {}
      : {
          superviseIntervalSeconds: options.superviseIntervalSeconds,
          monitorIntervalSeconds: options.superviseIntervalSeconds,
          maintenanceIntervalSeconds: options.superviseIntervalSeconds,
        }),
    // A worker hears a new job at once instead of at its next poll.
    useListenNotify: true,
  });

const watch = (boss: PgBoss, logger: Logger) => {
  // pg-boss reports its own failures (a lost connection, a failed maintenance run) here; unheard, an
  // `error` event would end the process.
  boss.on('error', (error: unknown) => {
    logger.warn({ error: describeError(error) }, 'job queue error');
  });
};

/** Starts the queue (creating or migrating its schema under pg-boss's own advisory lock when needed). */
export async function startJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const boss = construct(options, { supervise: options.supervise ?? true });
  watch(boss, options.logger);
  await boss.start();
  return boss;
}

/**
 * Creates or migrates the queue's schema and stops: `npm run migrate` (and the test template) run it, so
 * a service start finds the schema in place.
 */
export async function installJobQueue(connectionString: string, logger: Logger): Promise<void> {
  const boss = construct({ connectionString, logger, maxConnections: 1 }, { supervise: false });
  watch(boss, logger);
  await boss.start();
  await boss.stop({ graceful: false, timeout: 1_000 });
}
