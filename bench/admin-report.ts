import { PASSWORD_HASH_OPTIONS } from '../src/auth/passwords.ts';
import { type LoginCost, type Timings, UNKNOWN_EMAIL } from './login-cost.ts';
import { fixed, type Verdict } from './report.ts';

const VERIFY_MEDIAN_MS = { min: 50, max: 150 } as const;

const ms = (n: number) => `${fixed(n, 1)} ms`;
const unknownShare = (cost: LoginCost) => cost.unknown.medianMs / cost.known.medianMs;

export function verifyVerdict(cost: LoginCost): Verdict {
  const { medianMs } = cost.verify;
  return {
    target: `password verification median ${VERIFY_MEDIAN_MS.min}–${VERIFY_MEDIAN_MS.max} ms`,
    actual: ms(medianMs),
    pass: medianMs >= VERIFY_MEDIAN_MS.min && medianMs <= VERIFY_MEDIAN_MS.max,
  };
}

const row = (name: string, t: Timings) =>
  `| ${name} | ${t.runs} | ${ms(t.medianMs)} | ${ms(t.minMs)} | ${ms(t.maxMs)} |`;

export function loginSection(cost: LoginCost, warmups: number): string[] {
  const { memoryCost, timeCost, parallelism } = PASSWORD_HASH_OPTIONS;
  return [
    '## Login cost',
    '',
    `- Hash parameters (\`PASSWORD_HASH_OPTIONS\`): memoryCost ${memoryCost} KiB (${fixed(memoryCost / 1024, 0)} MiB), ` +
      `timeCost ${timeCost}, parallelism ${parallelism}; the hash made for the bench reads \`${cost.hashParameters}\`.`,
    `- Verification: \`verifyPassword\` called directly against that hash, one at a time, ${warmups} warm-ups first; ` +
      'nothing else runs meanwhile.',
    '- Login: `POST /admin/auth/login` end to end with `fetch` (throttle, account lookup, ' +
      'verification, last-login update, token, audit entry), one at a time, alternating the owner (200) and ' +
      `\`${UNKNOWN_EMAIL}\` (401, verified against the dummy hash), ${warmups} warm-ups of each first.`,
    cost.failures === 0
      ? '- Every verification matched and every login was answered as expected.'
      : `- **INVALID RUN: ${cost.failures} verifications failed or logins answered otherwise.**`,
    '',
    '| | runs | median | min | max |',
    '|---|---:|---:|---:|---:|',
    row('`verifyPassword`', cost.verify),
    row('login, owner (200)', cost.known),
    row('login, unknown email (401)', cost.unknown),
    '',
    `- unknown / owner login (medians): ${fixed(unknownShare(cost))}; close to 1 means the response time ` +
      'does not tell whether an email has an account (informational, no target).',
    '',
  ];
}

export const loginSummary = (cost: LoginCost): string[] => [
  `verify     median ${ms(cost.verify.medianMs)}  min ${ms(cost.verify.minMs)}  max ${ms(cost.verify.maxMs)}`,
  `login      owner ${ms(cost.known.medianMs)}  unknown ${ms(cost.unknown.medianMs)}  ` +
    `unknown/owner ${fixed(unknownShare(cost))}  failures ${cost.failures}`,
];
