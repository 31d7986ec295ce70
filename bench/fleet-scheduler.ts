import { performance, type RecordableHistogram } from 'node:perf_hooks';
import { newHistogram, recordMs } from './fleet-stats.ts';

/**
 * One timer for the whole fleet: a min-heap of (due time, task) read every `tickMs`. Tens of thousands
 * of users with a setTimeout each would cost more in timers than in requests.
 */

export interface MinHeap {
  push(due: number, task: number): void;
  /** The earliest due time, or Infinity when empty. */
  peek(): number;
  /** Removes the earliest entry and answers its task (call only when not empty). */
  pop(): number;
  readonly size: () => number;
}

/** A binary heap over two parallel arrays (no object per entry). */
export function createMinHeap(): MinHeap {
  const dues: number[] = [];
  const tasks: number[] = [];
  const swap = (a: number, b: number) => {
    [dues[a], dues[b]] = [dues[b] ?? 0, dues[a] ?? 0];
    [tasks[a], tasks[b]] = [tasks[b] ?? 0, tasks[a] ?? 0];
  };
  const due = (i: number) => dues[i] ?? Infinity;
  return {
    push(at, task) {
      dues.push(at);
      tasks.push(task);
      for (let i = dues.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (due(parent) <= due(i)) break;
        swap(i, parent);
        i = parent;
      }
    },
    peek: () => due(0),
    pop() {
      const top = tasks[0] ?? -1;
      const lastDue = dues.pop() ?? 0;
      const lastTask = tasks.pop() ?? 0;
      if (dues.length === 0) return top;
      dues[0] = lastDue;
      tasks[0] = lastTask;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        let smallest = due(left) < due(i) ? left : i;
        if (due(left + 1) < due(smallest)) smallest = left + 1;
        if (smallest === i) break;
        swap(i, smallest);
        i = smallest;
      }
      return top;
    },
    size: () => dues.length,
  };
}

/** Runs task `task` at about `due`; the task reschedules itself if it recurs. */
export type Run = (task: number, due: number, now: number) => void;

export interface Scheduler {
  at(due: number, task: number): void;
  /** How late each entry ran, in µs. */
  readonly late: RecordableHistogram;
  stop(): void;
}

export function startScheduler(run: Run, tickMs = 5): Scheduler {
  const heap = createMinHeap();
  const late = newHistogram();
  const tick = () => {
    const now = performance.now();
    while (heap.peek() <= now) {
      const due = heap.peek();
      const task = heap.pop();
      recordMs(late, now - due);
      run(task, due, now);
    }
  };
  const timer = setInterval(tick, tickMs);
  return {
    at: (due, task) => {
      heap.push(due, task);
    },
    late,
    stop() {
      clearInterval(timer);
    },
  };
}
