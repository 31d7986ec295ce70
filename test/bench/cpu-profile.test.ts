import { describe, expect, it } from 'vitest';
import { CATEGORY, summariseCpuProfile, TOP_FUNCTIONS } from '../../bench/cpu-profile.ts';

const ROOT = 'file:///app/';

interface Frame {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  readonly children?: readonly number[];
}

/** A node of a V8 profile as Profiler.stop gives it, with the fields the summary ignores. */
const node = ({ id, name, url, children }: Frame) => ({
  id,
  callFrame: { functionName: name, scriptId: '0', url, lineNumber: url === '' ? -1 : 9, columnNumber: 0 },
  hitCount: 0,
  ...(children === undefined ? {} : { children }),
});

/**
 * A service's call tree: natives under the JavaScript that called them, V8's pseudo-frames under the
 * root, code of the checkout, of node, of packages (a scoped one among them) and of elsewhere.
 */
const FRAMES: readonly Frame[] = [
  { id: 1, name: '(root)', url: '', children: [2, 3, 4, 5, 10, 13, 15, 16, 17, 18] },
  { id: 2, name: '(idle)', url: '' },
  { id: 3, name: '(program)', url: '' },
  { id: 4, name: '(garbage collector)', url: '' },
  { id: 5, name: 'emit', url: 'node:events', children: [6, 8] },
  { id: 6, name: 'handle', url: `${ROOT}src/http/routes/poll.ts`, children: [7, 11] },
  { id: 7, name: 'writev', url: '' },
  { id: 8, name: 'query', url: `${ROOT}node_modules/pg/lib/client.js`, children: [9] },
  { id: 9, name: '', url: '' },
  { id: 10, name: 'reply', url: `${ROOT}src/integrations/intercom/sandbox/server.ts`, children: [12] },
  { id: 11, name: 'parse', url: `${ROOT}node_modules/zod/v4/core/schemas.js` },
  { id: 12, name: 'get', url: `${ROOT}node_modules/@scope/lru/node_modules/inner/index.js` },
  { id: 13, name: 'fetch', url: 'node:internal/deps/undici/undici', children: [14] },
  { id: 14, name: 'wasm-function[3]', url: 'wasm://wasm/00ab' },
  { id: 15, name: 'send', url: `${ROOT}src/integrations/intercom/client.ts` },
  { id: 16, name: 'main', url: `${ROOT}src/main.ts` },
  { id: 17, name: 'sample', url: `${ROOT}bench/rss.ts` },
  { id: 18, name: 'other', url: 'file:///elsewhere/x.js' },
];

/** Milliseconds of samples on each node: 50 idle, 50 busy. */
const TIME_MS: ReadonlyArray<readonly [number, number]> = [
  [2, 50],
  [3, 2],
  [4, 3],
  [5, 3],
  [7, 10],
  [6, 8],
  [9, 5],
  [10, 4],
  [11, 6],
  [12, 3],
  [14, 2],
  [15, 1],
  [16, 1],
  [17, 1],
  [18, 1],
];

/** One sample a millisecond; the time before the first sample belongs to none. */
function profile(times: ReadonlyArray<readonly [number, number]> = TIME_MS) {
  const samples = times.flatMap(([id, ms]) => Array.from({ length: ms }, () => id));
  return {
    nodes: FRAMES.map(node),
    startTime: 5_000,
    endTime: 5_000 + (samples.length + 1) * 1000,
    samples,
    timeDeltas: samples.map(() => 1000),
  };
}

const byName = (shares: readonly { name: string; share: number }[]) =>
  Object.fromEntries(shares.map((s) => [s.name, Number(s.share.toFixed(6))]));

describe('a V8 CPU profile summarised', () => {
  const summary = summariseCpuProfile(profile(), ROOT);

  it('counts the busy time apart from the idle node', () => {
    expect(summary).toMatchObject({ sampledSeconds: 0.1, busySeconds: 0.05, idleShare: 0.5 });
  });

  it('gives self time by category, natives with their caller except the socket writes', () => {
    expect(byName(summary?.categories ?? [])).toEqual({
      [CATEGORY.socketWrites]: 0.2,
      'src/http': 0.16,
      [CATEGORY.json]: 0.12,
      // The anonymous native under pg's query.
      [CATEGORY.postgres]: 0.1,
      'src/integrations/intercom/sandbox': 0.08,
      [CATEGORY.node]: 0.06,
      [CATEGORY.gc]: 0.06,
      // The package of the last node_modules/ in the path, scope included.
      'package inner': 0.06,
      [CATEGORY.program]: 0.04,
      // WebAssembly under node's own undici.
      [CATEGORY.httpClient]: 0.04,
      'src/integrations': 0.02,
      src: 0.02,
      [CATEGORY.bench]: 0.02,
      [CATEGORY.otherCode]: 0.02,
    });
    const total = (summary?.categories ?? []).reduce((n, c) => n + c.share, 0);
    expect(total).toBeCloseTo(1, 9);
    expect(summary?.categories[0]).toEqual({ name: CATEGORY.socketWrites, seconds: 0.01, share: 0.2 });
  });

  it('lists the functions with the most self time, a native with the JavaScript that called it', () => {
    expect(summary?.topFunctions).toHaveLength(TOP_FUNCTIONS);
    expect(summary?.topFunctions.slice(0, 4)).toEqual([
      {
        name: 'writev',
        file: '(native), from handle (src/http/routes/poll.ts:10)',
        seconds: 0.01,
        share: 0.2,
      },
      { name: 'handle', file: 'src/http/routes/poll.ts:10', seconds: 0.008, share: 0.16 },
      { name: 'parse', file: 'zod/v4/core/schemas.js:10', seconds: 0.006, share: 0.12 },
      { name: '(anonymous)', file: '(native), from query (pg/lib/client.js:10)', seconds: 0.005, share: 0.1 },
    ]);
    expect(summary?.topFunctions.map((f) => f.name)).not.toContain('(idle)');
  });

  it('adds up one function over its call paths', () => {
    const twice = profile();
    twice.nodes.push(node({ id: 19, name: 'handle', url: `${ROOT}src/http/routes/poll.ts` }));
    twice.samples.push(19);
    twice.timeDeltas.push(1000);
    twice.endTime += 1000;
    expect(summariseCpuProfile(twice, ROOT)?.topFunctions[1]).toMatchObject({
      name: 'handle',
      seconds: 0.009,
    });
  });

  it('gives a sample the time until the next one, and the last the time until the end', () => {
    const uneven = { ...profile([[6, 2]]), timeDeltas: [400, 3000], endTime: 5_000 + 400 + 3000 + 250 };
    expect(summariseCpuProfile(uneven, ROOT)?.busySeconds).toBeCloseTo(0.00325, 9);
  });

  it('takes the checkout this module is in when no root is given', () => {
    const own = new URL('../../', import.meta.url).href;
    const here = { ...profile([[6, 1]]), nodes: [node({ id: 6, name: 'h', url: `${own}src/chat/x.ts` })] };
    expect(summariseCpuProfile(here)?.categories.map((c) => c.name)).toEqual(['src/chat']);
  });

  it('answers null for what is not a profile, so the report can say so', () => {
    const good = profile();
    expect(summariseCpuProfile(null)).toBeNull();
    expect(summariseCpuProfile('{"nodes":')).toBeNull();
    expect(summariseCpuProfile({ ...good, nodes: [] })).toBeNull();
    expect(summariseCpuProfile({ ...good, timeDeltas: good.timeDeltas.slice(1) })).toBeNull();
    expect(summariseCpuProfile({ ...good, samples: [...good.samples.slice(1), 99] })).toBeNull();
    expect(summariseCpuProfile({ ...good, nodes: [{ id: 1, callFrame: { url: '' } }] })).toBeNull();
  });

  it('summarises an empty window as nothing busy', () => {
    expect(summariseCpuProfile({ ...profile([]), endTime: 5_000 }, ROOT)).toEqual({
      sampledSeconds: 0,
      busySeconds: 0,
      idleShare: 0,
      categories: [],
      topFunctions: [],
    });
  });
});
