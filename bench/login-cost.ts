import { performance } from 'node:perf_hooks';
import { hashPassword, verifyPassword } from '../src/auth/passwords.ts';
import { type Credentials, postLogin } from './admin-session.ts';
import { median } from './load.ts';

export interface LoginCostOptions {
  /** Unmeasured runs of each step first. */
  readonly warmups: number;
  readonly verifyRuns: number;
  /** Logins with the owner's email, and as many with an unknown one. */
  readonly loginRuns: number;
  readonly signal: AbortSignal;
}

export interface Timings {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly runs: number;
}

export interface LoginCost {
  /** The parameters as the hash made for the bench records them: `$argon2id$v=19$m=…,t=…,p=…`. */
  readonly hashParameters: string;
  readonly verify: Timings;
  readonly known: Timings;
  readonly unknown: Timings;
  /** Verifications that did not match and logins not answered 200 (owner) or 401 (unknown), warm-ups included. */
  readonly failures: number;
}

export const UNKNOWN_EMAIL = 'nobody@bench.example';

const timingsOf = (samples: readonly number[]): Timings => ({
  medianMs: median(samples),
  minMs: Math.min(...samples),
  maxMs: Math.max(...samples),
  runs: samples.length,
});

/**
 * Runs every step once per round, one at a time and in turn (A, B, A, B, …, so drift hits all alike),
 * `warmups` rounds unmeasured, then `runs` measured. A step resolves whether its answer was the expected one.
 */
async function timeInTurn<K extends string>(
  steps: Readonly<Record<K, () => Promise<boolean>>>,
  warmups: number,
  runs: number,
  signal: AbortSignal,
): Promise<{ timings: Record<K, Timings>; failures: number }> {
  const names = Object.keys(steps) as K[];
  const samples = new Map(names.map((name) => [name, [] as number[]]));
  let failures = 0;
  for (let round = 0; round < warmups + runs; round++) {
    for (const name of names) {
      signal.throwIfAborted();
      const start = performance.now();
      const ok = await steps[name]();
      const ms = performance.now() - start;
      if (!ok) failures++;
      if (round >= warmups) samples.get(name)?.push(ms);
    }
  }
  const timings = {} as Record<K, Timings>;
  for (const name of names) timings[name] = timingsOf(samples.get(name) ?? []);
  return { timings, failures };
}

const answers = (base: string, credentials: Credentials, status: number, signal: AbortSignal) => async () => {
  const response = await postLogin(base, credentials, signal);
  await response.arrayBuffer();
  return response.status === status;
};

/**
 * One password verification with the service's argon2id parameters (`verifyPassword` called directly),
 * then `POST /admin/auth/login` end to end with the owner's email and with an unknown one.
 */
export async function measureLoginCost(
  base: string,
  owner: Credentials,
  { warmups, verifyRuns, loginRuns, signal }: LoginCostOptions,
): Promise<LoginCost> {
  const hash = await hashPassword(owner.password);
  const verifying = await timeInTurn(
    { verify: () => verifyPassword(hash, owner.password) },
    warmups,
    verifyRuns,
    signal,
  );
  const unknown = { email: UNKNOWN_EMAIL, password: owner.password };
  const logins = await timeInTurn(
    { known: answers(base, owner, 200, signal), unknown: answers(base, unknown, 401, signal) },
    warmups,
    loginRuns,
    signal,
  );
  return {
    hashParameters: hash.split('$').slice(0, 4).join('$'),
    verify: verifying.timings.verify,
    known: logins.timings.known,
    unknown: logins.timings.unknown,
    failures: verifying.failures + logins.failures,
  };
}
