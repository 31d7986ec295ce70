import { describe, expect, it } from 'vitest';
import type { Measured } from '../../bench/fleet-phases.ts';
import { statementDelta } from '../../bench/fleet-postgres.ts';
import { parseStat } from '../../bench/fleet-proc.ts';
import { createMinHeap } from '../../bench/fleet-scheduler.ts';
import { nominalPollRate } from '../../bench/fleet-shape.ts';
import { noPolls, noWrites, type StepResult, stepErrors, visibilityOf } from '../../bench/fleet-stats.ts';
import { judgeStep, summaryVerdicts } from '../../bench/fleet-verdicts.ts';

describe('the scheduler’s min-heap', () => {
  it('gives tasks back in order of their due times, ties included', () => {
    const heap = createMinHeap();
    const dues = [50, 10, 40, 10, 30, 20, 60, 0, 35];
    dues.forEach((due, task) => {
      heap.push(due, task);
    });
    const out: number[] = [];
    while (heap.size() > 0) {
      out.push(heap.peek());
      heap.pop();
    }
    expect(out).toEqual([...dues].sort((a, b) => a - b));
    expect(heap.peek()).toBe(Infinity);
  });

  it('answers the earliest entry at every pop while pushes and pops interleave', () => {
    const heap = createMinHeap();
    const reference: number[] = [];
    for (let i = 0; i < 300; i++) {
      const due = (i * 37) % 101;
      heap.push(due, i);
      reference.push(due);
      if (i % 3 === 2) {
        reference.sort((a, b) => a - b);
        expect(heap.peek()).toBe(reference.shift());
        heap.pop();
      }
    }
    expect(heap.size()).toBe(reference.length);
  });
});

describe('/proc/<pid>/stat', () => {
  it('reads ppid and utime + stime + cutime + cstime, even with spaces and parentheses in the name', () => {
    const line = '4242 (postgres: a (b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 120 30 7 3 20 0 1 0 5 0 0';
    expect(parseStat(line)).toEqual({ ppid: 17, ticks: 120 + 30 + 7 + 3 });
  });
});

describe('statements between two readings of pg_stat_statements', () => {
  it('counts only calls made in between, most first, and folds whitespace', () => {
    const before = new Map([
      ['1', { query: 'SELECT 1', calls: 10 }],
      ['2', { query: 'COMMIT', calls: 5 }],
    ]);
    const after = new Map([
      ['1', { query: 'SELECT 1', calls: 12 }],
      ['2', { query: 'COMMIT', calls: 5 }],
      ['3', { query: 'SELECT\n   x FROM  t', calls: 7 }],
    ]);
    expect(statementDelta(before, after)).toEqual({
      total: 9,
      top: [
        { query: 'SELECT x FROM t', calls: 7 },
        { query: 'SELECT 1', calls: 2 },
      ],
    });
  });
});

describe('how long a new comment takes to reach another user', () => {
  it('ranks over every comment posted, the unseen ones after all the seen', () => {
    const delays = Array.from({ length: 99 }, (_, i) => i + 1);
    expect(visibilityOf(delays, 100)).toEqual({ posted: 100, seen: 99, p50Ms: 50, p99Ms: 99, maxMs: 99 });
    expect(visibilityOf(delays.slice(0, 98), 100).p99Ms).toBeNull();
    expect(visibilityOf([], 0)).toEqual({ posted: 0, seen: 0, p50Ms: null, p99Ms: null, maxMs: null });
  });
});

const latency = (p99Ms: number) => ({ count: 100, p50Ms: 1, p95Ms: 2, p99Ms, maxMs: p99Ms });

function step(changes: Partial<StepResult> = {}): StepResult {
  const polls = noPolls();
  polls.unread = {
    ...polls.unread,
    scheduled: 1000,
    answered: 1000,
    statuses: { '304': 1000 },
    latency: latency(5),
  };
  const writes = noWrites();
  writes.view = { sent: 100, errorsOutside: 0, statuses: { '204': 100 }, latency: latency(3) };
  return {
    users: 1000,
    windowS: 60,
    polls,
    writes,
    visibility: { posted: 100, seen: 100, p50Ms: 300, p99Ms: 900, maxMs: 950 },
    generator: { loopDelayP99Ms: 1, loopDelayMaxMs: 3, lateP99Ms: 6, lateMaxMs: 9, inFlightMax: 10 },
    ...changes,
  };
}

function measured(cores: { service: number; postgres: number; generator: number }): Measured {
  return {
    seconds: 60,
    cores: { ...cores, baseline: null, others: 0 },
    statements: { total: 0, top: [] },
    service: {
      rssBytes: 0,
      rssPeakBytes: 0,
      heapUsedBytes: 0,
      loopDelayP99Ms: 0,
      loopDelayMaxMs: 0,
      providerCalls: 0,
      providerByKind: [],
    },
    scrape: null,
  };
}

const quiet = measured({ service: 0.3, postgres: 0.2, generator: 0.2 });

describe('a step of the ladder', () => {
  it('passes when every target is met and the generator kept up', () => {
    expect(judgeStep({ step: step(), measured: quiet })).toEqual({
      users: 1000,
      pass: true,
      misses: [],
      distrust: [],
    });
  });

  it('fails on a slow route, unanswered polls, any error and a late comment', () => {
    const s = step();
    s.polls.feed = { ...s.polls.unread, scheduled: 100, answered: 98, statuses: { '200': 98, '503': 2 } };
    s.polls.unread = { ...s.polls.unread, latency: latency(51) };
    s.writes.view = { ...s.writes.view, errorsOutside: 1 };
    const verdict = judgeStep({
      step: { ...s, visibility: { posted: 10, seen: 10, p50Ms: 1, p99Ms: 6_500, maxMs: 6_500 } },
      measured: quiet,
    });
    expect(verdict.pass).toBe(false);
    expect(verdict.misses).toEqual([
      'unread p99 51.0 ms',
      'feed answered 98.0 %',
      '3 errors',
      'comment seen p99 6.5 s',
    ]);
    expect(stepErrors(s)).toBe(3);
  });

  it('is not trusted when the generator lagged or saturated its core', () => {
    const lagging = step({
      generator: { loopDelayP99Ms: 25, loopDelayMaxMs: 40, lateP99Ms: 30, lateMaxMs: 45, inFlightMax: 10 },
    });
    const busy = measured({ service: 0.3, postgres: 0.2, generator: 0.95 });
    const verdict = judgeStep({ step: lagging, measured: busy });
    expect(verdict.pass).toBe(false);
    expect(verdict.misses).toEqual([]);
    expect(verdict.distrust).toHaveLength(2);
  });
});

describe('the summary', () => {
  it('names the largest passing step and checks idle and writer CPU', () => {
    const verdicts = [
      { users: 1000, pass: true, misses: [], distrust: [] },
      { users: 2500, pass: false, misses: ['x'], distrust: [] },
    ];
    const idle = measured({ service: 0.005, postgres: 0.01, generator: 0 });
    const writer = measured({ service: 0.2, postgres: 0.2, generator: 0.1 });
    const checks = summaryVerdicts([1000, 2500, 5000], verdicts, idle, writer);
    expect(checks.map((c) => [c.actual, c.pass])).toEqual([
      ['largest passing: 1000 users', false],
      ['1.5 %', true],
      ['0.40 cores', false],
    ]);
  });
});

describe('the fleet at the default intervals', () => {
  it('polls unread every 4 s and the feed every 10 s, a thread (1 in 5) every 5 s, a conversation (1 in 20) every 4 s', () => {
    // 20 users: 5 + 2 + 4 threads / 5 s + 1 conversation / 4 s.
    expect(nominalPollRate(20)).toBeCloseTo(5 + 2 + 0.8 + 0.25, 9);
  });
});
