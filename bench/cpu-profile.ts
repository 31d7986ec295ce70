import { z } from 'zod';

/**
 * Where a process's CPU time went, from a V8 CPU profile (`Profiler.stop`'s profile, the JSON of a
 * `.cpuprofile`): self time by category and the functions that took the most, as shares of the busy time.
 *
 * A profile samples the main thread: each sample names the node (a call path) that was on top of the stack,
 * and `timeDeltas[i]` is the time from the sample before it (from `startTime` for the first). A sample is
 * given the time until the next one (until `endTime` for the last), as Chrome's DevTools does. The `(idle)`
 * node is the loop waiting for work: it is left out of the busy time and reported as a share of its own.
 * GC helper threads and libuv's thread pool are not sampled, so busy time is the main thread's only.
 */

const callFrame = z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() });
const profileNode = z.object({
  id: z.number().int(),
  callFrame,
  children: z.array(z.number().int()).optional(),
});
/** The parts of a V8 CPU profile the summary reads; everything else (positionTicks, scriptId …) is ignored. */
const cpuProfileShape = z
  .object({
    nodes: z.array(profileNode).min(1),
    startTime: z.number(),
    endTime: z.number(),
    samples: z.array(z.number().int()),
    timeDeltas: z.array(z.number()),
  })
  .refine((p) => p.samples.length === p.timeDeltas.length, 'one time delta per sample');
type CpuProfile = z.infer<typeof cpuProfileShape>;
type ProfileNode = z.infer<typeof profileNode>;

const share = z.object({
  name: z.string(),
  seconds: z.number(),
  /** Of the busy time. */
  share: z.number(),
});

/** A profile summarised; a schema because it crosses the IPC channel in a window's reading. */
export const cpuProfileSummary = z.object({
  /** Time the samples cover, idle included. */
  sampledSeconds: z.number(),
  busySeconds: z.number(),
  /** Of the sampled time. */
  idleShare: z.number(),
  /** Self time by category, most first; the shares add up to 1 when anything was busy. */
  categories: z.array(share),
  /** The functions with the most self time (all their call paths together), most first. */
  topFunctions: z.array(share.extend({ file: z.string() })),
});
export type CpuProfileSummary = z.infer<typeof cpuProfileSummary>;
export type TimeShare = z.infer<typeof share>;

/** A window's profile: its summary, `unreadable` when it was not a profile, null when none was taken. */
export const cpuProfileReading = z.union([cpuProfileSummary, z.literal('unreadable')]).nullable();
export type CpuProfileReading = z.infer<typeof cpuProfileReading>;

export const TOP_FUNCTIONS = 10;

/** The categories by name, so the report and the tests spell them the same way. */
export const CATEGORY = {
  socketWrites: 'socket writes',
  httpServer: 'HTTP server (node:http, fastify)',
  json: 'JSON and validation (zod …)',
  postgres: 'PostgreSQL driver (pg, slonik)',
  redis: 'Redis (ioredis)',
  httpClient: 'HTTP client (undici, node:http)',
  gc: 'garbage collector',
  program: '(program): V8 and native code outside JavaScript',
  node: 'other node internals',
  bench: 'bench harness',
  otherCode: 'other code',
  otherNative: 'other native code',
} as const;

/**
 * Natives that copy a write into the kernel (node:net's stream handle): their self time is the socket
 * writes' own cost, whoever wrote (the HTTP answers mostly; the pool's and Redis's sockets too).
 */
const SOCKET_WRITES = new Set([
  'writev',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
  'writeUcs2String',
  'writeBuffer',
]);

/** Packages by category; a package not named here is a category of its own (`package <name>`). */
const PACKAGES: Readonly<Record<string, readonly string[]>> = {
  [CATEGORY.httpServer]: [
    'fastify',
    'find-my-way',
    'light-my-request',
    'avvio',
    'fastify-plugin',
    // fastify's and find-my-way's own helpers.
    'toad-cache',
    'fast-querystring',
    'safe-regex2',
    'abstract-logging',
    'process-warning',
  ],
  [CATEGORY.json]: [
    'zod',
    'fastify-type-provider-zod',
    'fast-json-stringify',
    'secure-json-parse',
    'ajv',
    '@fastify/ajv-compiler',
    '@fastify/fast-json-stringify-compiler',
  ],
  [CATEGORY.postgres]: [
    'pg',
    'pg-protocol',
    'pg-pool',
    'pg-types',
    'pg-int8',
    'pg-cursor',
    'pg-query-stream',
    'pg-connection-string',
    'pgpass',
    'postgres-array',
    'postgres-bytea',
    'postgres-date',
    'postgres-interval',
    'slonik',
  ],
  [CATEGORY.redis]: [
    'ioredis',
    '@ioredis/commands',
    'redis-errors',
    'redis-parser',
    'standard-as-callback',
    'cluster-key-slot',
    'denque',
  ],
  [CATEGORY.httpClient]: ['undici'],
};
const PACKAGE_CATEGORY = new Map(
  Object.entries(PACKAGES).flatMap(([category, names]) => names.map((name) => [name, category] as const)),
);

/** Folders of src/ shown apart from their top folder: the Intercom fake is not the service's own work. */
const SRC_SPLITS = ['integrations/intercom/sandbox'];

/** The package a node_modules file belongs to (`@scope/name` or `name`), from its last node_modules/. */
function packageOf(url: string): string | null {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const [first = '', second = ''] = url.slice(at + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

function packageCategory(name: string): string {
  const known = PACKAGE_CATEGORY.get(name);
  if (known !== undefined) return known;
  // Scopes of one project: every @slonik/* is slonik's, every other @fastify/* a plugin of the server.
  if (name.startsWith('@slonik/')) return CATEGORY.postgres;
  if (name.startsWith('@fastify/')) return CATEGORY.httpServer;
  return `package ${name}`;
}

function nodeCategory(url: string): string {
  // node:http's client side (firebase-admin, the AWS SDK) and fetch (node's own undici) call out.
  if (url === 'node:_http_client' || url === 'node:_http_agent') return CATEGORY.httpClient;
  if (url.startsWith('node:internal/deps/undici')) return CATEGORY.httpClient;
  // node:net carries the pool's and Redis's sockets too, but under a fleet it is mostly the server's.
  if (url.startsWith('node:_http_') || url === 'node:net' || url.startsWith('node:internal/http'))
    return CATEGORY.httpServer;
  return CATEGORY.node;
}

/** `src/<top folder>` (or a split of SRC_SPLITS) of a file under the checkout's src/. */
function srcCategory(path: string): string {
  const split = SRC_SPLITS.find((s) => path.startsWith(`${s}/`));
  if (split !== undefined) return `src/${split}`;
  const slash = path.indexOf('/');
  return slash < 0 ? 'src' : `src/${path.slice(0, slash)}`;
}

/** The category of a script (a frame with a url), for the checkout at `root` (a file URL ending in /). */
function scriptCategory(url: string, root: string): string {
  const pkg = packageOf(url);
  if (pkg !== null) return packageCategory(pkg);
  if (url.startsWith('node:')) return nodeCategory(url);
  if (url.startsWith(`${root}src/`)) return srcCategory(url.slice(`${root}src/`.length));
  if (url.startsWith(`${root}bench/`)) return CATEGORY.bench;
  return CATEGORY.otherCode;
}

/** Natives and WebAssembly have no script of their own to say whose they are. */
const hasScript = (url: string) => url !== '' && !url.startsWith('wasm://');

/** Node ids to their nodes and parents. */
interface Tree {
  readonly nodes: ReadonlyMap<number, ProfileNode>;
  readonly parents: ReadonlyMap<number, number>;
}

function treeOf(profile: CpuProfile): Tree {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
  return { nodes, parents };
}

/** The nearest node at or above `id` whose code has a script (a url), if any. */
function scriptedAncestor(tree: Tree, id: number): ProfileNode | null {
  for (let at: number | undefined = id; at !== undefined; at = tree.parents.get(at)) {
    const node = tree.nodes.get(at);
    if (node !== undefined && hasScript(node.callFrame.url)) return node;
  }
  return null;
}

/**
 * The category of a node's self time. A native (JSON.parse, a hash, runMicrotasks) or a WebAssembly
 * function (undici's llhttp) counts with the nearest JavaScript that called it, since that says whose
 * work it was; the socket writes and V8's own pseudo-frames are categories of their own.
 */
function categoryOf(tree: Tree, id: number, root: string): string {
  const frame = tree.nodes.get(id)?.callFrame;
  if (frame === undefined) return CATEGORY.otherNative;
  if (frame.url === '') {
    if (frame.functionName === '(garbage collector)') return CATEGORY.gc;
    if (frame.functionName === '(program)') return CATEGORY.program;
    if (SOCKET_WRITES.has(frame.functionName)) return CATEGORY.socketWrites;
  }
  const script = scriptedAncestor(tree, id);
  return script === null ? CATEGORY.otherNative : scriptCategory(script.callFrame.url, root);
}

/** Self time of each node, in µs: each sample is given the time until the next (until endTime for the last). */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  const { samples, timeDeltas } = profile;
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i] ?? 0;
    const span = i + 1 < samples.length ? (timeDeltas[i + 1] ?? 0) : profile.endTime - at;
    const id = samples[i] ?? 0;
    // Samples may come slightly out of order; a negative span is counted as none.
    self.set(id, (self.get(id) ?? 0) + Math.max(0, span));
  }
  return self;
}

/** How a file reads in the report: from its package, relative to the checkout, or as node names it. */
function fileLabel(url: string, line: number, root: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('wasm://')) return '(WebAssembly)';
  const at = url.lastIndexOf('/node_modules/');
  const path =
    at >= 0 ? url.slice(at + '/node_modules/'.length) : url.startsWith(root) ? url.slice(root.length) : url;
  // V8 counts lines from 0.
  return line >= 0 ? `${path}:${line + 1}` : path;
}

/** Sums µs by name into seconds and shares of `busyUs`, most first. */
function shares(entries: Iterable<readonly [string, number]>, busyUs: number): TimeShare[] {
  const sums = new Map<string, number>();
  for (const [name, us] of entries) sums.set(name, (sums.get(name) ?? 0) + us);
  return [...sums]
    .map(([name, us]) => ({ name, seconds: us / 1e6, share: busyUs > 0 ? us / busyUs : 0 }))
    .sort((a, b) => b.seconds - a.seconds);
}

/**
 * A function of the top list: where it is, or for a native, the JavaScript that called it (a native's
 * name alone, often empty, says little; `byteLength` under node:buffer does).
 */
function functionOf(
  tree: Tree,
  node: ProfileNode,
  root: string,
): { key: string; name: string; file: string } {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === '' ? '(anonymous)' : functionName;
  const caller = hasScript(url) ? null : scriptedAncestor(tree, node.id);
  const file =
    caller === null
      ? fileLabel(url, lineNumber, root)
      : `${fileLabel(url, lineNumber, root)}, from ${caller.callFrame.functionName || '(anonymous)'} ` +
        `(${fileLabel(caller.callFrame.url, caller.callFrame.lineNumber, root)})`;
  return { key: `${functionName}\u0000${url}\u0000${lineNumber}\u0000${file}`, name, file };
}

function topFunctions(tree: Tree, busy: ReadonlyMap<number, number>, busyUs: number, root: string) {
  // One function appears at many call paths: keyed by name and place, they add up.
  const functions = new Map<string, { name: string; file: string }>();
  const times: [string, number][] = [];
  for (const [id, us] of busy) {
    const node = tree.nodes.get(id);
    if (node === undefined) continue;
    const { key, name, file } = functionOf(tree, node, root);
    functions.set(key, { name, file });
    times.push([key, us]);
  }
  return shares(times, busyUs)
    .slice(0, TOP_FUNCTIONS)
    .map(({ name: key, seconds, share: s }) => ({
      ...(functions.get(key) ?? { name: key, file: '' }),
      seconds,
      share: s,
    }));
}

const isIdle = (tree: Tree, id: number) => {
  const frame = tree.nodes.get(id)?.callFrame;
  return frame?.url === '' && frame.functionName === '(idle)';
};

/** The checkout this module belongs to: the service process's own, which is where its src/ lives. */
const OWN_ROOT = new URL('../', import.meta.url).href;

/**
 * Summarises a parsed `.cpuprofile` (anything: it is checked first). `root` is the file URL of the checkout
 * whose src/ is the service's code (this module's own by default). Null when it is not a V8 CPU profile or
 * its samples name nodes it does not have.
 */
export function summariseCpuProfile(raw: unknown, root: string = OWN_ROOT): CpuProfileSummary | null {
  const parsed = cpuProfileShape.safeParse(raw);
  if (!parsed.success) return null;
  const tree = treeOf(parsed.data);
  const self = selfTimes(parsed.data);
  if ([...self.keys()].some((id) => !tree.nodes.has(id))) return null;
  const busy = new Map([...self].filter(([id]) => !isIdle(tree, id)));
  const sampledUs = [...self.values()].reduce((n, us) => n + us, 0);
  const busyUs = [...busy.values()].reduce((n, us) => n + us, 0);
  return {
    sampledSeconds: sampledUs / 1e6,
    busySeconds: busyUs / 1e6,
    idleShare: sampledUs > 0 ? (sampledUs - busyUs) / sampledUs : 0,
    categories: shares(
      [...busy].map(([id, us]) => [categoryOf(tree, id, root), us] as const),
      busyUs,
    ),
    topFunctions: topFunctions(tree, busy, busyUs, root),
  };
}
