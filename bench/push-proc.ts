import { readdirSync, readFileSync } from 'node:fs';
import { parseStat } from './fleet-proc.ts';

/**
 * Every process's CPU time at a moment (/proc/<pid>/stat, own and reaped children's), to tell what else ran
 * on the machine during a window: tests, a build, another bench.
 */

const TICKS_PER_SECOND = 100;

export interface ProcessSnapshot {
  readonly ticks: ReadonlyMap<
    number,
    { readonly comm: string; readonly ppid: number; readonly ticks: number }
  >;
}

export function snapshotProcesses(): ProcessSnapshot {
  const ticks = new Map<number, { comm: string; ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const stat = parseStat(text);
      const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      if (stat) ticks.set(Number(entry), { comm, ppid: stat.ppid, ticks: stat.ticks });
    } catch {
      // gone meanwhile
    }
  }
  return { ticks };
}

/** `roots` and every process below them in either snapshot. */
function family(roots: readonly number[], ...snapshots: ProcessSnapshot[]): Set<number> {
  const children = new Map<number, number[]>();
  for (const s of snapshots)
    for (const [pid, { ppid }] of s.ticks) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found = new Set<number>();
  const stack = [...roots];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    if (found.has(pid)) continue;
    found.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

export interface OtherWork {
  /** Cores used by processes outside the bench's (kernel threads included). */
  readonly cores: number;
  /** The busiest of them by command name, cores each. */
  readonly top: readonly (readonly [string, number])[];
}

/** CPU of every process outside `bench` (roots of the bench's process trees) between two snapshots. */
export function otherWork(
  before: ProcessSnapshot,
  after: ProcessSnapshot,
  bench: readonly number[],
  seconds: number,
): OtherWork {
  const ours = family(bench, before, after);
  const byComm = new Map<string, number>();
  let total = 0;
  for (const [pid, { comm, ticks }] of after.ticks) {
    if (ours.has(pid)) continue;
    const delta = ticks - (before.ticks.get(pid)?.ticks ?? 0);
    if (delta <= 0) continue;
    total += delta;
    byComm.set(comm, (byComm.get(comm) ?? 0) + delta);
  }
  // A process that exited meanwhile moved its whole time into its parent's cutime/cstime, counted above:
  // the part it had used before the window is not the window's.
  for (const [pid, { ppid, ticks }] of before.ticks) {
    if (ours.has(pid) || after.ticks.has(pid)) continue;
    const parent = after.ticks.get(ppid);
    if (!parent || ours.has(ppid)) continue;
    total -= ticks;
    byComm.set(parent.comm, (byComm.get(parent.comm) ?? 0) - ticks);
  }
  const cores = (t: number) => t / TICKS_PER_SECOND / seconds;
  return {
    cores: cores(total),
    top: [...byComm]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([comm, t]) => [comm, cores(t)] as const),
  };
}
