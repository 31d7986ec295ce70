import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { checkComment } from '../src/content-safety/index.ts';
import { machine } from './machine.ts';
import { fixed, targetLines, targetsSection, type Verdict } from './report.ts';

const TEXT_LENGTH = 2_000;
const TEXTS = 400;
const WARMUP_CALLS = 3_000;
const SAMPLES = 20_000;
const HIT_EVERY = 8;

// Benign prose in both languages, with the numbers, dates and abbreviations real comments carry.
const SENTENCES = [
  'Thank you all, the new update works great on my phone.',
  'You know what, this time they will have to call me back about the order.',
  'Please check order 12345, it was paid yesterday at 10.30 and still shows pending.',
  'Released v1.2.3 of the node.js client; see file.txt for the notes, e.g. the fixes.',
  'The price went from 3.50 to 4.20 per item, which is a lot for students.',
  'My phone number is +1 (555) 123-4567, call me after 6 pm.',
  'We need more time and more people to finish the work before the end of the year.',
  'Transaction 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 is confirmed.',
  'Great job team, please tell every member that the final version will ship next month.',
  'Спасибо за ответ, всё работает, но иногда приложение вылетает после обновления.',
  'Заказ №12345 оплачен вчера в 10.30, когда будет доставка в г. Москва?',
  'Мой телефон +7 (912) 345-67-89, звоните после шести, т.е. вечером.',
  'Встреча перенесена на 12.05.2024 в 14:30, адрес: ул. Ленина, д. 5.',
  'Обновил приложение до версии 2.3.1, всё равно пишет ошибку при входе.',
  'Перевёл 1 500 руб., а пришло только 1 250, подскажите, что делать.',
  'Трек-номер 80082345678901, посылка в пути уже неделю, и т.д. и т.п.',
  'Отличный канал, подписался, жду новых постов про безопасность кошельков!',
];

// What leaks at the end of a long comment, so every rule up to the last one is run: the plain forms
// and the evasions of decision 015's hardening (separators, spaced dots, split keys, prose passwords).
const ENDINGS = [
  ' my card 4111 1111 1111 1111 exp 12/26',
  ' seed: legal winner thank year wave sausage worth useful legal winner thank yellow',
  ' пароль: Kotik_2020',
  ' key AKIAIOSFODNN7EXAMPLE',
  ' see example[.]com',
  ' priv 4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318',
  ' pay to 4111.1111/1111 - 1111',
  ' legal🔥winner🔥thank🔥year🔥wave🔥sausage🔥worth🔥useful🔥legal🔥winner🔥thank🔥yellow',
  ' visit example . com',
  ' AKIA IOSF ODNN 7EXA MPLE',
  ' my password is sunshine',
];

/** xorshift: the same texts on every run, so runs compare. */
function texts(): string[] {
  let state = 0x9e3779b9;
  const next = (count: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % count;
  };
  return Array.from({ length: TEXTS }, (_, i) => {
    const ending = i % HIT_EVERY === 0 ? (ENDINGS[next(ENDINGS.length)] ?? '') : '';
    let text = '';
    while (text.length < TEXT_LENGTH - ending.length) text += `${SENTENCES[next(SENTENCES.length)] ?? ''} `;
    return `${text.slice(0, TEXT_LENGTH - ending.length)}${ending}`;
  });
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

/**
 * Times `checkComment` alone on 2,000-character comments, one call at a time, after a warm-up that
 * lets V8 optimise the rules. One in eight texts carries a secret or a link at its end. The target
 * is p99 < 2 ms.
 */
export async function measureContentSafety(): Promise<{
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}> {
  const inputs = texts();
  const options = { hashKey: 'bench' };
  for (let i = 0; i < WARMUP_CALLS; i++) checkComment(inputs[i % inputs.length] ?? '', options);
  // Yield once so the warm-up's garbage is not collected inside the measured calls' first ticks.
  await new Promise((resolve) => setImmediate(resolve));
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const input = inputs[i % inputs.length] ?? '';
    const start = performance.now();
    checkComment(input, options);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    samples: SAMPLES,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: times.at(-1) ?? Number.NaN,
  };
}

const TARGET_P99_MS = 2;
const REPORT_FILE = fileURLToPath(new URL('./results/content-safety.md', import.meta.url));

/**
 * `npm run bench -- content-safety`: the DLP check alone (the comments bench runs it
 * too, before its load), written to bench/results/content-safety.md. The load average is recorded
 * because the check shares the CPU with whatever else runs: a busy machine inflates the tail.
 */
export async function benchContentSafety(signal?: AbortSignal): Promise<number> {
  const load = loadavg()[0] ?? Number.NaN;
  const timing = await measureContentSafety();
  if (signal?.aborted) return 130;
  const checks: Verdict[] = [
    {
      target: `DLP check p99 < ${TARGET_P99_MS} ms (2,000-char texts, the whole checkComment)`,
      actual: `${fixed(timing.p99Ms, 3)} ms`,
      pass: timing.p99Ms < TARGET_P99_MS,
    },
  ];
  const host = machine();
  const report = [
    '# Benchmark: the content-safety check (links and DLP)',
    '',
    'Written by `npm run bench -- content-safety`; overwritten on every run.',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node: ${host.node}`,
    `- CPU: ${host.cpuCount} × ${host.cpuModel}`,
    `- Load average (1 min) at the start: ${fixed(load)}`,
    `- \`measureContentSafety\`: ${TEXTS} deterministic ${TEXT_LENGTH.toLocaleString('en')}-character comments of mixed English and Russian prose with numbers, dates and abbreviations, one in ${HIT_EVERY} ending with a secret or a link (${ENDINGS.length} endings, the evasions of decision 015 included); ${WARMUP_CALLS.toLocaleString('en')} calls of warm-up, then ${timing.samples} timed calls one at a time.`,
    '',
    '| Metric | Value |',
    '|---|---:|',
    `| calls | ${timing.samples} |`,
    `| p50 | ${fixed(timing.p50Ms, 3)} ms |`,
    `| p99 | ${fixed(timing.p99Ms, 3)} ms |`,
    `| max | ${fixed(timing.maxMs, 3)} ms |`,
    '',
    ...targetsSection(checks),
    '',
  ].join('\n');
  await writeFile(REPORT_FILE, report);
  process.stdout.write(`${targetLines(checks).join('\n')}\nreport: ${REPORT_FILE}\n`);
  // Like every bench, a missed target is reported, not an exit code (bench/README.md).
  return 0;
}
