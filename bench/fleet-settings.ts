import { positiveInt } from './env.ts';

/** The fleet bench's settings from the environment (README: "Fleet"). */
export interface FleetSettings {
  /** The ladder of fleet sizes, climbed in order until a step fails. */
  readonly ladder: readonly number[];
  readonly rampS: number;
  readonly durationS: number;
  readonly idleS: number;
  readonly writerS: number;
  /** Events in the seeded log (views), on top of what the API seeding writes. */
  readonly logEvents: number;
  readonly baselineUsers: number;
  readonly connections: number;
  /** BENCH_FLEET_AFFINITY=1: each user keeps to one of the generator's sockets (fleet-http.ts). */
  readonly affinity: boolean;
  readonly logLevel: string;
  readonly poolSize: number | undefined;
  /**
   * BENCH_FLEET_PROCESSES: the counts of API processes to run the fleet against, each with a worker of its
   * own role; null (unset) runs the one process of `npm start`, as the bench always has.
   */
  readonly processes: readonly number[] | null;
  /** Where the processes share their state; required with `processes`, never used without. */
  readonly redisUrl: string | null;
}

/**
 * Each API process may hold 17 connections and the worker 20 (docs/scale-out.md): four API processes and
 * the worker stay under the embedded cluster's max_connections (100) with room for the bench's own.
 */
export const MAX_API_PROCESSES = 4;

function positiveIntList(name: string, fallback: readonly number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 1)) {
    throw new Error(`${name} must be a comma-separated list of positive integers, got '${raw}'`);
  }
  return values;
}

/** BENCH_FLEET_PROCESSES and the Redis several processes need, checked before anything starts. */
function processSettings(): Pick<FleetSettings, 'processes' | 'redisUrl'> {
  const raw = process.env.BENCH_FLEET_PROCESSES;
  if (raw === undefined || raw.trim() === '') return { processes: null, redisUrl: null };
  const processes = positiveIntList('BENCH_FLEET_PROCESSES', []);
  if (processes.some((k) => k > MAX_API_PROCESSES)) {
    throw new Error(`BENCH_FLEET_PROCESSES allows at most ${MAX_API_PROCESSES} API processes, got '${raw}'`);
  }
  const redisUrl = process.env.REDIS_URL;
  if (redisUrl === undefined || redisUrl === '') {
    throw new Error(
      'BENCH_FLEET_PROCESSES needs REDIS_URL: the processes share limits and caches through it',
    );
  }
  return { processes, redisUrl };
}

/** BENCH_FLEET_AFFINITY: `1` or unset (`0`); read by the orchestrator and the generator alike. */
export function affinityFromEnv(): boolean {
  const raw = process.env.BENCH_FLEET_AFFINITY ?? '';
  if (raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new Error(`BENCH_FLEET_AFFINITY must be 1 or 0, got '${raw}'`);
}

export function fleetSettings(): FleetSettings {
  const ladder = positiveIntList('BENCH_FLEET_USERS', [1_000, 2_500, 5_000, 10_000]);
  return {
    ladder,
    rampS: positiveInt('BENCH_FLEET_RAMP_S') ?? 15,
    durationS: positiveInt('BENCH_FLEET_DURATION_S') ?? 60,
    idleS: positiveInt('BENCH_FLEET_IDLE_S') ?? 60,
    writerS: positiveInt('BENCH_FLEET_WRITER_S') ?? 60,
    logEvents: positiveInt('BENCH_FLEET_LOG_EVENTS') ?? 1_000_000,
    baselineUsers: positiveInt('BENCH_FLEET_BASELINE_USERS') ?? Math.max(...ladder),
    connections: positiveInt('BENCH_FLEET_CONNECTIONS') ?? 256,
    affinity: affinityFromEnv(),
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    poolSize: positiveInt('BENCH_POOL_SIZE'),
    ...processSettings(),
  };
}

/** How the generator's sockets are used, for a report's head. */
export function sharing(settings: Pick<FleetSettings, 'affinity'>): string {
  return settings.affinity
    ? 'each user keeping to one of them, as a phone keeps its own (BENCH_FLEET_AFFINITY)'
    : 'shared by all users';
}
