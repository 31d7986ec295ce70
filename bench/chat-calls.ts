import { performance } from 'node:perf_hooks';
import type { IntercomSandbox } from '../src/integrations/intercom/sandbox/index.ts';

/** One API call the sandbox received, with the time (`performance.now()`) the bench saw it. */
export interface TimedCall {
  readonly at: number;
  readonly method: string;
  readonly path: string;
}

export interface CallLog {
  /** Every call since the log started, oldest first. */
  readonly calls: readonly TimedCall[];
  /** Takes in the calls made so far and answers the time it stamped them with: a window's edge. */
  mark(): number;
  /** The calls after the mark `from`, up to and including the mark `to`. */
  between(from: number, to: number): TimedCall[];
  stop(): void;
}

/**
 * Watches `sandbox.calls` (which has no times) every `intervalMs`, stamping what is new, so that a call
 * can be placed in a window and against the cache's TTL. Under load a stamp may come a few ms late; a
 * window's edges are marks, which take in every call made before them, so counts per window are exact.
 */
export function recordCalls(sandbox: IntercomSandbox, intervalMs = 5): CallLog {
  const calls: TimedCall[] = [];
  let seen = sandbox.calls.length;
  let trimmed = false;
  const take = () => {
    const at = performance.now();
    // The sandbox halves its list past 100,000 calls (this bench makes a few dozen): counts would be off.
    if (sandbox.calls.length < seen) trimmed = true;
    for (const { method, path } of sandbox.calls.slice(seen)) calls.push({ at, method, path });
    seen = sandbox.calls.length;
    return at;
  };
  const mark = () => {
    const at = take();
    if (trimmed) throw new Error('the sandbox trimmed its call list; the counts would be wrong');
    return at;
  };
  const timer = setInterval(take, intervalMs);
  return {
    calls,
    mark,
    between: (from, to) => calls.filter((c) => c.at > from && c.at <= to),
    stop() {
      clearInterval(timer);
    },
  };
}

/** `GET /conversations/{id}`: ids (Intercom's digits, the sandbox's 24-hex contact ids) become `{id}`. */
export const kindOf = (call: { readonly method: string; readonly path: string }): string =>
  `${call.method} ${call.path.replace(/\/(\d+|[0-9a-f]{24})(?=\/|$)/g, '/{id}')}`;

/** Calls per kind, most frequent first. */
export function byKind(calls: readonly TimedCall[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(kindOf(call), (counts.get(kindOf(call)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** What the conversation poll cost at the provider in a window. */
export interface ProviderCalls {
  readonly total: number;
  /** `GET /conversations/{id}` of the polled conversation. */
  readonly conversationReads: number;
  /** Of those, the ones that came at least the cache's TTL after the read before: the TTL's refresh. */
  readonly ttlRefreshes: number;
  /**
   * Searches: in the conversation poll's rounds and the invalidation phase, which poll no list, only the
   * reconciler's look at what changed (once a minute, whatever the number of pollers; decision 022) makes
   * them.
   */
  readonly reconcilerSearches: number;
  /**
   * Reads of the conversation just after a search that are not TTL refreshes: a change the reconciler
   * found is invalidated once (its safety net for lost webhooks), and the next poll reads it again. Their
   * number follows the changes found, not the pollers.
   */
  readonly reconcilerReads: number;
  readonly byKind: readonly [string, number][];
}

// A stamp can be late by the interval and the event loop's lag; the entry expires a TTL after its
// load finished, so a refresh comes a TTL or more after the call before it.
const STAMP_SLACK_MS = 500;
// The reconciler invalidates as soon as its search answers, and pollers read again within milliseconds.
const RECONCILER_READ_WINDOW_MS = 1_000;

/** The calls of the window (`from`, `to`], the polled conversation's reads told apart. */
export function providerCalls(
  log: CallLog,
  from: number,
  to: number,
  conversationId: string,
  ttlMs: number,
): ProviderCalls {
  const path = `/conversations/${conversationId}`;
  const isRead = (c: TimedCall) => c.method === 'GET' && c.path === path;
  const window = log.between(from, to);
  const reads = log.calls.filter(isRead);
  const isTtlRefresh = (read: TimedCall, before: TimedCall | undefined) =>
    before !== undefined && read.at - before.at >= ttlMs - STAMP_SLACK_MS;
  const ttlRefreshes = reads.filter(
    (read, i) => read.at > from && read.at <= to && isTtlRefresh(read, reads[i - 1]),
  ).length;
  const searches = window.filter((c) => c.method === 'POST' && c.path.endsWith('/search'));
  const reconcilerReads = reads.filter(
    (read, i) =>
      read.at > from &&
      read.at <= to &&
      !isTtlRefresh(read, reads[i - 1]) &&
      searches.some((search) => read.at >= search.at && read.at - search.at <= RECONCILER_READ_WINDOW_MS),
  ).length;
  return {
    total: window.length,
    conversationReads: window.filter(isRead).length,
    ttlRefreshes,
    reconcilerSearches: searches.length,
    reconcilerReads,
    byKind: byKind(window),
  };
}

/** What the list poll cost at the provider in a window: the list's loads and its reads of each request. */
export interface ListProviderCalls {
  readonly total: number;
  /**
   * The reconciler's looks: one `POST /tickets/search` each (the conversation list never searches
   * tickets; one page each, as this bench's records are few).
   */
  readonly reconcilerLooks: number;
  /** Each look's two searches: tickets, and the `POST /conversations/search` sent with it. */
  readonly reconcilerSearches: number;
  /** The other `POST /conversations/search` calls: the list's own loads (by contact). */
  readonly listLoads: number;
  /** `GET /conversations/{id}` of the user's requests. */
  readonly conversationReads: number;
  /** List loads and reads that came a TTL or more after the one before of the same key. */
  readonly ttlRefreshes: number;
  /**
   * List loads and reads within 1 s after a look, TTL refreshes aside: the read again of a change the
   * reconciler found and invalidated (the list of its contact and the record).
   */
  readonly reconcilerReads: number;
  readonly byKind: readonly [string, number][];
}

// The two searches of one look are sent together and answered within milliseconds.
const LOOK_PAIR_MS = 1_000;

/**
 * The calls of the window (`from`, `to`] as the list poll of `conversationIds`' owner makes them. Searches
 * carry no body in the sandbox's log, so a list load and the reconciler's conversation search look alike:
 * each look (its tickets search) takes the earliest conversation search within 1 s of it as its own.
 */
export function listProviderCalls(
  log: CallLog,
  from: number,
  to: number,
  conversationIds: readonly string[],
  ttlMs: number,
): ListProviderCalls {
  const inWindow = (c: TimedCall) => c.at > from && c.at <= to;
  const isPost = (path: string) => (c: TimedCall) => c.method === 'POST' && c.path === path;
  const looks = log.calls.filter(isPost('/tickets/search'));
  const searches = log.calls.filter(isPost('/conversations/search'));
  const paired = new Set<TimedCall>();
  for (const look of looks) {
    const own = searches.find((s) => !paired.has(s) && Math.abs(s.at - look.at) <= LOOK_PAIR_MS);
    if (own) paired.add(own);
  }
  const loads = searches.filter((s) => !paired.has(s));
  const paths = new Set(conversationIds.map((id) => `/conversations/${id}`));
  const reads = log.calls.filter((c) => c.method === 'GET' && paths.has(c.path));
  const refreshes = new Set<TimedCall>();
  const last = new Map<string, number>();
  for (const c of [...loads, ...reads].sort((a, b) => a.at - b.at)) {
    const before = last.get(c.path);
    if (before !== undefined && c.at - before >= ttlMs - STAMP_SLACK_MS) refreshes.add(c);
    last.set(c.path, c.at);
  }
  const afterLook = (c: TimedCall) =>
    looks.some((look) => c.at >= look.at && c.at - look.at <= RECONCILER_READ_WINDOW_MS);
  const window = log.between(from, to);
  const windowLooks = looks.filter(inWindow).length;
  return {
    total: window.length,
    reconcilerLooks: windowLooks,
    reconcilerSearches: windowLooks + [...paired].filter(inWindow).length,
    listLoads: loads.filter(inWindow).length,
    conversationReads: reads.filter(inWindow).length,
    ttlRefreshes: [...refreshes].filter(inWindow).length,
    reconcilerReads: [...loads, ...reads].filter((c) => inWindow(c) && !refreshes.has(c) && afterLook(c))
      .length,
    byKind: byKind(window),
  };
}
