import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full garbage collection: `global.gc` when node runs with --expose-gc, else exposed for the call. */
export function collectGarbage(): boolean {
  let gc: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc');
  }
  if (typeof gc !== 'function') return false;
  (gc as () => void)();
  return true;
}

/**
 * The kernel's own peak RSS of this process (VmHWM, Linux), which no sampling interval can miss.
 * `resetKernelPeak` brings it down to the current RSS; both give undefined/false where /proc does not allow.
 */
export function kernelPeakRss(): number | undefined {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

export function resetKernelPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

export interface RssSampler {
  /** Starts a new phase: its peak starts at the current RSS. */
  reset(): void;
  /** The highest RSS seen since the last reset (a last sample included). */
  peak(): number;
  stop(): void;
}

/** Samples `process.memoryUsage.rss()` every `intervalMs` (unref'd: it never keeps the process up). */
export function sampleRss(intervalMs: number): RssSampler {
  let highest = process.memoryUsage.rss();
  const sample = () => {
    highest = Math.max(highest, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    reset() {
      highest = process.memoryUsage.rss();
    },
    peak() {
      sample();
      return highest;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
