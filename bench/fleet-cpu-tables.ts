import type { CpuProfileSummary, TimeShare } from './cpu-profile.ts';
import type { Measured, ProcessWindow } from './fleet-phases.ts';
import { fixed, percent } from './report.ts';

/** Where each service process's CPU time went in a window (BENCH_FLEET_CPU_PROFILE), as Markdown. */

/** Categories under this share of the busy time are one "other" row: the table is for where most went. */
export const MIN_CATEGORY_SHARE = 0.01;

/** A table cell: a function's name or file must not end the cell early nor open code. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/`/g, "'");

function categoryTable(categories: readonly TimeShare[]): string[] {
  const shown = categories.filter((c) => c.share >= MIN_CATEGORY_SHARE);
  const rest = categories.filter((c) => c.share < MIN_CATEGORY_SHARE);
  const sum = (pick: (c: TimeShare) => number) => rest.reduce((n, c) => n + pick(c), 0);
  return [
    '| where (self time) | share of busy | seconds |',
    '|---|---:|---:|',
    ...shown.map((c) => `| ${cell(c.name)} | ${percent(c.share)} | ${fixed(c.seconds)} |`),
    ...(rest.length === 0
      ? []
      : [
          `| other (${rest.length} categories under ${percent(MIN_CATEGORY_SHARE)} each) | ` +
            `${percent(sum((c) => c.share))} | ${fixed(sum((c) => c.seconds))} |`,
        ]),
  ];
}

function functionTable(functions: CpuProfileSummary['topFunctions']): string[] {
  return [
    '| function (self time) | file | share of busy |',
    '|---|---|---:|',
    ...functions.map((f) => `| ${cell(f.name)} | ${cell(f.file)} | ${percent(f.share)} |`),
  ];
}

function processProfile(p: ProcessWindow): string[] {
  const profile = p.cpuProfile;
  if (profile === null) return [];
  if (profile === 'unreadable') return [`**${p.name}**: profile unreadable`, ''];
  return [
    `**${p.name}**: busy ${fixed(profile.busySeconds)} s of ${fixed(profile.sampledSeconds)} s sampled ` +
      `(idle ${percent(profile.idleShare)})`,
    '',
    ...categoryTable(profile.categories),
    '',
    ...functionTable(profile.topFunctions),
    '',
  ];
}

/** The profile of every process that took one in the window; nothing when none did. */
export function cpuProfileSection(m: Measured): string[] {
  if (m.processes.every((p) => p.cpuProfile === null)) return [];
  return [
    "Where the service's CPU time went (a V8 CPU profile of each process over the window): self time by category and the functions " +
      "with the most, as shares of the busy time (the main thread's sampled time less `(idle)`; GC threads and libuv's pool are not sampled). " +
      'A native counts with the JavaScript that called it, except the socket writes (`writev`, `writeUtf8String` …: copying answers into the kernel).',
    '',
    ...m.processes.flatMap(processProfile),
  ];
}
