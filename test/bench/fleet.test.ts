import { describe, expect, it } from 'vitest';
import type { CpuProfileSummary } from '../../bench/cpu-profile.ts';
import type { ServiceWindow } from '../../bench/fleet-messages.ts';
import { combineWindows, type Measured } from '../../bench/fleet-phases.ts';
import { statementDelta } from '../../bench/fleet-postgres.ts';
import { parseStat } from '../../bench/fleet-proc.ts';
import { createMinHeap } from '../../bench/fleet-scheduler.ts';
import { renderProcessesMarkdown } from '../../bench/fleet-processes-report.ts';
import type { FleetRound, FleetRun } from '../../bench/fleet-report.ts';
import { fleetSettings, type FleetSettings } from '../../bench/fleet-settings.ts';
import { nominalPollRate } from '../../bench/fleet-shape.ts';
import { noPolls, noWrites, type StepResult, stepErrors, visibilityOf } from '../../bench/fleet-stats.ts';
import { cpuPerPollUs, paceFactor, processTable, resourceLines } from '../../bench/fleet-tables.ts';
import { judgeStep, summaryVerdicts } from '../../bench/fleet-verdicts.ts';
import { overloadVerdict, pollCost, usersOn } from '../../bench/fleet-overload.ts';

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
      requests: 0,
      paceTriggers: { busy: 0, late: 0, queue: 0 },
      inService: [],
    },
    processes: [],
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

const window = (changes: Partial<ServiceWindow>): ServiceWindow => ({
  rssBytes: 100 * 2 ** 20,
  rssPeakBytes: 120 * 2 ** 20,
  heapUsedBytes: 40 * 2 ** 20,
  loopDelayP99Ms: 2,
  loopDelayMaxMs: 8,
  providerCalls: 0,
  providerByKind: [],
  requests: 0,
  paceTriggers: { busy: 0, late: 0, queue: 0 },
  inService: [],
  ...changes,
});

describe('a fleet past capacity', () => {
  const slowed = (changes: Partial<StepResult['polls']['unread']>) => {
    const s = step();
    s.polls.unread = { ...s.polls.unread, maxIntervalMs: 32_000, ...changes };
    return s;
  };

  it('passes when nearly every poll is answered within a second without errors, and the pace calms down', () => {
    const verdict = overloadVerdict({
      step: slowed({ latency: latency(400) }),
      measured: quiet,
      calmAfterS: 9,
    });
    expect(verdict.pass).toBe(true);
    expect(verdict.target).toContain('the pace engaged, up to 8.0 ×');
    expect(verdict.actual).toBe('100.0 %, 0 errors, p99 400.0 ms, calm after 9.0 s');
  });

  it('fails on a slow answer, a lost poll, an error or a pace that stays up', () => {
    const judge = (s: StepResult, calmAfterS: number | null = 9) =>
      overloadVerdict({ step: s, measured: quiet, calmAfterS }).pass;
    expect(judge(slowed({ latency: latency(1_000) }))).toBe(false);
    expect(judge(slowed({ answered: 960 }))).toBe(false);
    expect(judge(slowed({ statuses: { '304': 999, '503': 1 } }))).toBe(false);
    expect(judge(slowed({}), 31)).toBe(false);
    expect(judge(slowed({}), Number.POSITIVE_INFINITY)).toBe(false);
    expect(judge(slowed({}), null)).toBe(false);
  });
});

describe('capacity on paper', () => {
  it('charges each poll what the step cost beyond the writer mix, and fills the usable cores with users', () => {
    const round: FleetRound = {
      apiProcesses: 1,
      idle: null,
      // 0.4 cores for the writes alone; 1.0 in the step: 0.6 cores for 1,000 polls in 60 s.
      writer: { step: step(), measured: measured({ service: 0.3, postgres: 0.1, generator: 0.1 }) },
      steps: [{ step: step(), measured: measured({ service: 0.7, postgres: 0.3, generator: 0.2 }) }],
      verdicts: [],
      checks: [],
    };
    const cost = pollCost(round);
    expect(cost?.marginalUs).toBeCloseTo(36_000, 6);
    expect(cost?.writerCores).toBeCloseTo(0.4, 9);
    expect(cost?.pollsPerUser).toBeCloseTo(nominalPollRate(1000) / 1000, 9);
    if (!cost) return;
    // 8 cores × 0.75 = 6, less 0.4 for the writes: 5.6 cores of polls at 36 ms each.
    expect(usersOn(8, cost)).toBe(Math.floor(5.6 / (0.036 * cost.pollsPerUser)));
    expect(pollCost({ ...round, writer: null })).toBeNull();
  });
});

describe('the service as several processes', () => {
  it('adds up memory, calls and requests, and takes the worst event loop', () => {
    const api1 = window({
      requests: 600,
      loopDelayP99Ms: 3,
      loopDelayMaxMs: 20,
      paceTriggers: { busy: 4, late: 1, queue: 0 },
      inService: [
        [0.005, 500],
        [0.025, 590],
        [null, 600],
      ],
    });
    const api2 = window({
      requests: 400,
      loopDelayP99Ms: 5,
      loopDelayMaxMs: 12,
      paceTriggers: { busy: 2, late: 0, queue: 3 },
      inService: [
        [0.005, 300],
        [0.025, 400],
        [null, 400],
      ],
    });
    const worker = window({
      providerCalls: 7,
      providerByKind: [
        ['GET /conversations/{id}', 5],
        ['POST /conversations', 2],
      ],
    });
    expect(combineWindows([api1, api2, worker])).toEqual({
      rssBytes: 300 * 2 ** 20,
      rssPeakBytes: 360 * 2 ** 20,
      heapUsedBytes: 120 * 2 ** 20,
      loopDelayP99Ms: 5,
      loopDelayMaxMs: 20,
      providerCalls: 7,
      providerByKind: [
        ['GET /conversations/{id}', 5],
        ['POST /conversations', 2],
      ],
      requests: 1000,
      paceTriggers: { busy: 6, late: 1, queue: 3 },
      inService: [
        [0.005, 800],
        [0.025, 990],
        [null, 1000],
      ],
    });
  });

  it('bounds the time requests spent inside the service by the buckets that hold p50 and p99', () => {
    const m = measured({ service: 0.5, postgres: 0.2, generator: 0.1 });
    const withBuckets = (inService: ServiceWindow['inService']): Measured => ({
      ...m,
      service: { ...m.service, inService },
    });
    const line = (inService: ServiceWindow['inService']) =>
      resourceLines(withBuckets(inService), 1_000).find((l) => l.startsWith('- Time inside'));
    expect(
      line([
        [0.005, 800],
        [0.025, 990],
        [0.05, 995],
        [null, 1000],
      ]),
    ).toMatch(/p50 ≤ 5\.00 ms, p99 ≤ 25\.0 ms;/);
    expect(
      line([
        [0.005, 10],
        [5, 20],
        [null, 1000],
      ]),
    ).toMatch(/p50 over 5000\.0 ms, p99 over 5000\.0 ms;/);
    expect(line([[null, 0]])).toBeUndefined();
  });

  it('keeps one process’s reading as it is, and loses a count or a sample only when every process did', () => {
    const one = window({ requests: 3 });
    expect(combineWindows([one])).toBe(one);
    const quiet = combineWindows([
      window({ loopDelayP99Ms: null, loopDelayMaxMs: null }),
      window({ loopDelayP99Ms: null, loopDelayMaxMs: null, providerCalls: null }),
    ]);
    expect([quiet.loopDelayP99Ms, quiet.loopDelayMaxMs, quiet.providerCalls]).toEqual([null, null, null]);
  });

  it('gives CPU per answered poll in µs, per process and for all', () => {
    expect(cpuPerPollUs(0.5, 60, 30_000)).toBeCloseTo(1000, 9);
    expect(cpuPerPollUs(0.5, 60, 0)).toBeNull();
    expect(cpuPerPollUs(0.5, 60, null)).toBeNull();
    const m: Measured = {
      ...measured({ service: 0.9, postgres: 0.3, generator: 0.2 }),
      processes: [
        { name: 'api-1', cores: 0.4, window: window({ requests: 15_000 }), cpuProfile: null },
        { name: 'api-2', cores: 0.3, window: window({ requests: 15_000 }), cpuProfile: null },
        { name: 'worker', cores: 0.2, window: window({}), cpuProfile: null },
      ],
    };
    const table = processTable(m, 60_000);
    expect(table.map((row) => row.split(' | ').slice(0, 4).join(' | '))).toEqual([
      '| process | CPU (cores) | CPU per answered poll | requests served',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      '| api-1 | 0.40 | 400 µs | 15000',
      '| api-2 | 0.30 | 300 µs | 15000',
      '| worker | 0.20 | 200 µs | 0',
      '| **all** | 0.90 | 900 µs | 0',
      '',
    ]);
    expect(processTable(measured({ service: 0.9, postgres: 0.3, generator: 0.2 }), 60_000)).toEqual([]);
  });

  it('reports the longest X-Poll-Interval as a multiple of its route’s default', () => {
    const s = step();
    expect(paceFactor(s)).toBeNull();
    s.polls.unread = { ...s.polls.unread, maxIntervalMs: 4_000 };
    expect(paceFactor(s)).toBe(1);
    s.polls.feed = { ...s.polls.feed, maxIntervalMs: 30_000 };
    expect(paceFactor(s)).toBe(3);
  });
});

describe('BENCH_FLEET_PROCESSES', () => {
  const withEnv = (env: Record<string, string | undefined>, run: () => void) => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    const put = (values: Record<string, string | undefined>) => {
      for (const [k, v] of Object.entries(values)) {
        if (v === undefined) Reflect.deleteProperty(process.env, k);
        else process.env[k] = v;
      }
    };
    put(env);
    try {
      run();
    } finally {
      put(saved);
    }
  };

  it('is the single process when unset, and a list of counts that needs REDIS_URL when set', () => {
    withEnv({ BENCH_FLEET_PROCESSES: undefined, REDIS_URL: 'redis://127.0.0.1:6379' }, () => {
      expect(fleetSettings()).toMatchObject({ processes: null, redisUrl: null });
    });
    withEnv({ BENCH_FLEET_PROCESSES: '1,2,3', REDIS_URL: 'redis://127.0.0.1:6379' }, () => {
      expect(fleetSettings()).toMatchObject({ processes: [1, 2, 3], redisUrl: 'redis://127.0.0.1:6379' });
    });
    withEnv({ BENCH_FLEET_PROCESSES: '2', REDIS_URL: undefined }, () => {
      expect(() => fleetSettings()).toThrow(/REDIS_URL/);
    });
    withEnv({ BENCH_FLEET_PROCESSES: '5', REDIS_URL: 'redis://127.0.0.1:6379' }, () => {
      expect(() => fleetSettings()).toThrow(/at most 4/);
    });
  });

  it('keeps each user to one socket only when BENCH_FLEET_AFFINITY is 1', () => {
    withEnv({ BENCH_FLEET_AFFINITY: undefined }, () => {
      expect(fleetSettings().affinity).toBe(false);
    });
    withEnv({ BENCH_FLEET_AFFINITY: '1' }, () => {
      expect(fleetSettings().affinity).toBe(true);
    });
    withEnv({ BENCH_FLEET_AFFINITY: 'yes' }, () => {
      expect(() => fleetSettings()).toThrow(/BENCH_FLEET_AFFINITY/);
    });
  });
});

describe('the multi-process report', () => {
  const settings: FleetSettings = {
    ladder: [1000],
    rampS: 15,
    durationS: 60,
    idleS: 60,
    writerS: 60,
    logEvents: 1,
    baselineUsers: 1000,
    connections: 256,
    affinity: false,
    logLevel: 'warn',
    poolSize: undefined,
    processes: [1, 2],
    redisUrl: 'redis://127.0.0.1:6379',
  };
  const profiled: CpuProfileSummary = {
    sampledSeconds: 60,
    busySeconds: 30,
    idleShare: 0.5,
    categories: [
      { name: 'socket writes', seconds: 15, share: 0.5 },
      { name: 'src/http', seconds: 14.85, share: 0.495 },
      { name: 'package lru-cache', seconds: 0.09, share: 0.003 },
      { name: 'src/push', seconds: 0.06, share: 0.002 },
    ],
    topFunctions: [
      { name: 'writev', file: '(native), from writevGeneric (node:x:1)', seconds: 15, share: 0.5 },
    ],
  };
  const processes = (apis: number) => [
    ...Array.from({ length: apis }, (_, i) => ({
      name: `api-${i + 1}`,
      cores: 0.4 / apis,
      window: window({}),
      cpuProfile: apis === 2 && i === 0 ? profiled : null,
    })),
    {
      name: 'worker',
      cores: 0.1,
      window: window({}),
      cpuProfile: apis === 2 ? ('unreadable' as const) : null,
    },
  ];
  const round = (apis: number): FleetRound => {
    const m = { ...measured({ service: 0.5, postgres: 0.3, generator: 0.2 }), processes: processes(apis) };
    return {
      apiProcesses: apis,
      idle: m,
      writer: { step: step(), measured: m },
      steps: [{ step: step(), measured: m }],
      verdicts: [{ users: 1000, pass: true, misses: [], distrust: [] }],
      checks: [],
    };
  };
  const run: FleetRun = {
    date: new Date(0),
    machine: { cpuCount: 2, cpuModel: 'test', memoryGiB: 4, node: 'v24' },
    source: { commit: 'abc', digest: 'def', uncommitted: [] },
    postgres: '18',
    settings,
    generatorNice: -10,
    poolSize: 10,
    workerPoolSize: 6,
    seed: {
      users: 1000,
      conversations: 50,
      apiSeconds: 1,
      log: { events: 1, users: 1, seconds: 1, logSize: 1 },
      catchUpSeconds: 1,
      settleSeconds: 1,
    },
    rounds: [round(1), round(2)],
    baseline: null,
    invalid: [],
    checks: [],
  };

  it('puts the counts side by side, then a section per count with a table per process', () => {
    const markdown = renderProcessesMarkdown(run);
    // 0.5 cores over 60 s, 1,000 polls answered: 30 ms of CPU per poll.
    expect(markdown).toContain('| 1 | 1000 | PASS | 17 | 5.00 ms | 100.0 % |');
    expect(markdown).toMatch(/\| 2 \| 1000 \| PASS .*\| 0\.50 \| 0\.20 \/ 0\.20 \| 0\.10 \| 30000 µs \|/);
    expect(markdown).toContain('## 1 API process and the worker');
    expect(markdown).toContain('## 2 API processes and the worker');
    expect(markdown).toContain('| api-2 | 0.20 | 12000 µs |');
    expect(markdown).toContain('pool size 10 per API process, 6 in the worker');
  });

  it('shows where the CPU time went in the windows that were profiled, small categories as one row', () => {
    const [one = '', two = ''] = renderProcessesMarkdown(run).split('## 2 API processes and the worker');
    expect(one).not.toContain('CPU time went');
    expect(two).toContain('**api-1**: busy 30.00 s of 60.00 s sampled (idle 50.0 %)');
    expect(two).toContain('| socket writes | 50.0 % | 15.00 |');
    expect(two).toContain('| src/http | 49.5 % | 14.85 |');
    expect(two).toContain('| other (2 categories under 1.0 % each) | 0.5 % | 0.15 |');
    expect(two).toContain('| writev | (native), from writevGeneric (node:x:1) | 50.0 % |');
    expect(two).toContain('**worker**: profile unreadable');
    expect(two).not.toContain('**api-2**');
  });
});
