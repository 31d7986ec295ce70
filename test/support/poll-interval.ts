import { expect } from 'vitest';
import { PACE_FACTORS } from '../../src/http/poll-pace.ts';

/**
 * `X-Poll-Interval` is the route's configured interval, times the pace factor of the moment: a test
 * process on a loaded machine (CI beside other suites) may be paced up for a while, which is the pace
 * working, not the route misconfigured. The base must still be this route's own.
 */
export function expectPollInterval(header: string | null, baseMs: number): void {
  expect(PACE_FACTORS.map((factor) => String(baseMs * factor))).toContain(header);
}
