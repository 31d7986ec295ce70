import { describe, expect, it } from 'vitest';
import type { Series } from '../../bench/load.ts';
import { median } from '../../bench/load.ts';
import { interleavedTable, type RunInfo, share, verdicts } from '../../bench/report.ts';

const series = (rounds: readonly number[]): Series => ({
  requestsPerSecond: median(rounds),
  p50Ms: 1,
  p99Ms: 5,
  okResponses: 1,
  failures: 0,
  rounds,
});

const info: RunInfo = {
  date: new Date(0),
  node: 'v24',
  cpuCount: 2,
  cpuModel: 'test',
  connections: 50,
  durationS: 5,
  rounds: 3,
  warmupS: 2,
  logLevel: 'warn',
  database: 'test',
  poolSize: undefined,
};

describe('a share of the bare route (decision 006)', () => {
  // The machine sped up between rounds 2 and 3: the ratio of the medians divides round 3 by round 2.
  const hello = series([20_000, 22_000, 27_000]);
  const target = series([10_440, 11_800, 11_264]);

  it('is the median of the rounds’ ratios, each round against its own hello', () => {
    expect(target.requestsPerSecond / hello.requestsPerSecond).toBeCloseTo(0.512, 3);
    expect(share(target, hello)).toBeCloseTo(0.522, 3);
  });

  it('fails a target that misses in most rounds', () => {
    const mostlyLow = series([4_000, 6_000, 8_000]);
    expect(share(mostlyLow, series([20_000, 20_000, 20_000]))).toBeCloseTo(0.3, 5);
    const [throughput] = verdicts(
      info,
      { hello: series([20_000, 20_000, 20_000]), service: series([4_000, 4_800, 8_000]) },
      { name: 'x', route: 'x' },
    );
    expect(throughput).toMatchObject({ actual: '24.0 %', pass: false });
  });

  it('shows each round, the share and the ratio of the medians', () => {
    const table = interleavedTable(hello, { poll: target }, '2xx').join('\n');
    expect(table).toContain('| share of hello (median of the rounds) | 100.0 % | 52.2 % |');
    expect(table).toContain(
      '| share of hello by round | 100.0 %, 100.0 %, 100.0 % | 52.2 %, 53.6 %, 41.7 % |',
    );
    expect(table).toContain('| ratio of the medians | 100.0 % | 51.2 % |');
  });
});
