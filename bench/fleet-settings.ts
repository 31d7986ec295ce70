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
  readonly logLevel: string;
  readonly poolSize: number | undefined;
}

function positiveIntList(name: string, fallback: readonly number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 1)) {
    throw new Error(`${name} must be a comma-separated list of positive integers, got '${raw}'`);
  }
  return values;
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
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    poolSize: positiveInt('BENCH_POOL_SIZE'),
  };
}
