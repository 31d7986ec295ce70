import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time from /proc (Linux): what a process, or a process and everything under it, has used. */

interface Stat {
  readonly ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks: its own time and that of children it reaped. */
  readonly ticks: number;
}

function clockTicks(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

const TICKS_PER_SECOND = clockTicks();

/** Parses `/proc/<pid>/stat` text; the command name may hold spaces and parentheses, so fields count from the last ')'. */
export function parseStat(text: string): Stat | null {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state (3), ppid (4), …, utime (14), stime (15), cutime (16), cstime (17).
  const at = (field: number) => Number(fields[field - 3]);
  const ticks = at(14) + at(15) + at(16) + at(17);
  return Number.isFinite(ticks) ? { ppid: at(4), ticks } : null;
}

function statOf(pid: number): Stat | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** CPU seconds of one process (and the children it has reaped); NaN once it is gone. */
export function processCpuSeconds(pid: number): number {
  const stat = statOf(pid);
  return stat ? stat.ticks / TICKS_PER_SECOND : Number.NaN;
}

/**
 * CPU seconds of `root` and every live process below it. A child that exits between two readings is
 * not lost: once reaped, its time moves into its parent's cutime/cstime, which is counted.
 */
export function treeCpuSeconds(root: number): number {
  const stats = new Map<number, Stat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let ticks = 0;
  const stack = [root];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    ticks += stats.get(pid)?.ticks ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return stats.has(root) ? ticks / TICKS_PER_SECOND : Number.NaN;
}

/** CPU seconds the whole machine has been busy (every state but idle and iowait), from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user).
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
