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
   * Searches: in this bench, which polls one conversation and no list, only the reconciler's look at what
   * changed (once a minute, whatever the number of pollers; decision 022) makes them.
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
