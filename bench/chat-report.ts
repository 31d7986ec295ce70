import type { ListProviderCalls, ProviderCalls } from './chat-calls.ts';
import { type Invalidation, LEAD_MS, PROBE_MS, TAIL_MS } from './chat-invalidation.ts';
import { LIST_RATING, type ListChecks, type SeededList } from './chat-list.ts';
import type { SeededChat } from './chat-seed.ts';
import { median, type Series } from './load.ts';
import {
  fixed,
  interleavedHead,
  interleavedTable,
  percent,
  pollColumns,
  type PollResults,
  type RunInfo,
  share,
  shareLines,
  targetsSection,
  type Verdict,
} from './report.ts';

/** The provider calls of the poll rounds (warm-up included), and the cache's TTL they are read against. */
export interface SteadyCalls {
  readonly calls: ProviderCalls;
  readonly ttlMs: number;
}

/** The list poll's rounds (a run of their own, with their own hello), its checks and its provider calls. */
export interface ListPoll {
  readonly seeded: SeededList;
  readonly hello: Series;
  readonly list200: Series;
  readonly list304: Series;
  /** The checked 200's body, in bytes, and its rows. */
  readonly bodyBytes: number;
  readonly items: number;
  /** Every 200 of the load (warm-up included) against the checked one. */
  readonly checks: ListChecks;
  /** Rounds (hello included, warm-up included). */
  readonly calls: ListProviderCalls;
  /** How long the bench waited, after the conversation poll's rounds, for the reconciler's look. */
  readonly waitedMs: number;
}

const columns = pollColumns;
const listColumns = (list: ListPoll) => ({ 'list 200': list.list200, 'list 304': list.list304 });

const POLL_304_SHARE = 0.5;
const POLL_200_SHARE = 0.35;
const LIST_304_SHARE = 0.5;

/**
 * Unexpected responses (non-2xx; not 304 for the conditional polls), errors and timeouts, probe included,
 * and list answers that did not show the rating right.
 */
export const chatFailures = (poll: PollResults, list: ListPoll, phase: Invalidation): number =>
  poll.hello.failures +
  poll.poll200.failures +
  poll.poll304.failures +
  list.hello.failures +
  list.list200.failures +
  list.list304.failures +
  list.checks.wrong +
  phase.failures;

/** Every reply's webhook processed and every reply shown by the poll afterwards: else the run is invalid. */
export const phaseComplete = (phase: Invalidation): boolean =>
  phase.processed === phase.replies && phase.shown === phase.replies;

/** Reads of the conversation the invalidations caused: the TTL's refreshes are the TTL's doing. */
const invalidationReads = (phase: Invalidation) => phase.calls.conversationReads - phase.calls.ttlRefreshes;
const untimed = (calls: ProviderCalls | ListProviderCalls) =>
  calls.total - calls.ttlRefreshes - calls.reconcilerSearches - calls.reconcilerReads;

export function chatVerdicts(
  poll: PollResults,
  steady: SteadyCalls,
  list: ListPoll,
  phase: Invalidation,
): Verdict[] {
  const s304 = share(poll.poll304, poll.hello);
  const s200 = share(poll.poll200, poll.hello);
  const l304 = share(list.list304, list.hello);
  const reads = invalidationReads(phase);
  const lc = list.calls;
  return [
    {
      target: `poll 304 req/s >= ${POLL_304_SHARE * 100} % of the bare route's`,
      actual: percent(s304),
      pass: s304 >= POLL_304_SHARE,
    },
    {
      target: `poll 200 req/s >= ${POLL_200_SHARE * 100} % of the bare route's`,
      actual: percent(s200),
      pass: s200 >= POLL_200_SHARE,
    },
    {
      target: `0 provider calls during the steady-state poll rounds (the cache TTL's refresh, one per ${fixed(steady.ttlMs / 1000, 0)} s, and the reconciler's searches, two a minute, with one read of each change they find, aside)`,
      actual: `${untimed(steady.calls)} (${steady.calls.total} in all, ${steady.calls.ttlRefreshes} TTL refreshes, ${steady.calls.reconcilerSearches} reconciler searches, ${steady.calls.reconcilerReads} reads of what they found)`,
      pass: untimed(steady.calls) === 0,
    },
    {
      target: `provider calls per invalidation == 1 (\`GET /conversations/{id}\`, ${phase.pollers} pollers)`,
      actual: `${reads} / ${phase.processed} = ${phase.processed === 0 ? '-' : fixed(reads / phase.processed)}`,
      pass: phase.processed === phase.replies && reads === phase.processed,
    },
    {
      target: `list poll 304 req/s >= ${LIST_304_SHARE * 100} % of the bare route's`,
      actual: percent(l304),
      pass: l304 >= LIST_304_SHARE,
    },
    {
      target: `0 provider calls during the steady-state list poll rounds (the reconciler's searches, two a minute, with one read again of each change they find, and the cache TTL's refresh, aside)`,
      actual: `${untimed(lc)} (${lc.total} in all, ${lc.reconcilerSearches} reconciler searches, ${lc.reconcilerReads} reads of what they found, ${lc.ttlRefreshes} TTL refreshes)`,
      pass: untimed(lc) === 0,
    },
  ];
}

const kinds = (calls: { readonly byKind: readonly (readonly [string, number])[] }) =>
  calls.byKind.length === 0 ? 'none' : calls.byKind.map(([kind, n]) => `\`${kind}\` ${n}`).join(', ');

function callsSection(poll: PollResults, steady: SteadyCalls, phase: Invalidation): string[] {
  const polls = poll.poll200.okResponses + poll.poll304.okResponses;
  const row = (label: string, a: string | number, b: string | number) => `| ${label} | ${a} | ${b} |`;
  return [
    '## Provider calls (at the Intercom sandbox)',
    '',
    `Every API call the sandbox received (\`sandbox.calls\`), counted between marks taken just before and just after each load, stamped by a watcher every 5 ms. The service's read cache keeps a conversation ${fixed(steady.ttlMs / 1000, 0)} s (\`SUPPORT_CACHE_TTL_MS\`, the config's default) when no invalidation comes; a read at least that long after the one before is counted as the TTL's refresh.`,
    '',
    '| | poll rounds (hello included, warm-up included) | invalidation phase |',
    '|---|---:|---:|',
    row('provider calls, all kinds', steady.calls.total, phase.calls.total),
    row(
      '`GET /conversations/{id}` of the polled conversation',
      steady.calls.conversationReads,
      phase.calls.conversationReads,
    ),
    row('… of which TTL refreshes', steady.calls.ttlRefreshes, phase.calls.ttlRefreshes),
    row('by kind', kinds(steady.calls), kinds(phase.calls)),
    row('polls answered (expected status)', polls, phase.polls),
    '',
  ];
}

function listSection(list: ListPoll, ttlMs: number): string[] {
  const { seeded, checks, calls } = list;
  const others = seeded.conversationIds.length - 1;
  const row = (label: string, value: string | number) => `| ${label} | ${value} |`;
  return [
    '## List poll: `GET /api/conversations` (warm cache, CSAT overlay) against bare `GET /hello`',
    '',
    `The same user's ${seeded.conversationIds.length} requests (the whole list): the polled conversation above (open), one more open request with an operator reply, and two the team closed (\`sandbox.operator.close\`, a signed webhook); once the user's polls showed them closed, the user rated the first of them ${LIST_RATING} stars through \`POST /api/csat\`. The rating's note and tag at Intercom (the csat-notes processor, after the 201) and their webhooks were done before any load. The list rounds then wait for the reconciler's first look that began after the seeding, and 1 s more, so that every change of the seeding has been found and invalidated once (waited ${fixed(list.waitedMs / 1000, 1)} s after the conversation poll's rounds): nothing changes during these rounds. They are a run of their own after the conversation poll's, with the same settings (warm-up of each target, then the same number and length of alternating rounds: hello, list 200, list 304, hello, …); shares are against this run's hello. The 200 body is ${list.bodyBytes} bytes (${list.items} rows); list 200 sends no \`If-None-Match\`, list 304 the ETag of a checked 200.`,
    '',
    `**The rated overlay**: the checked 200 showed \`rated: true\` and \`rating: ${LIST_RATING}\` on the rated request (decision 029: a row gets \`rating\` with \`rated\`), \`rated: false\` and no \`rating\` on the ${others} others, and the states right. Every 200 of the load, warm-up included, was compared with it in autocannon's \`onResponse\` (a string compare; a body that differs is parsed and checked): ${checks.same} identical, ${checks.otherButRight} different but right, **${checks.wrong} wrong**. Every 304 answered the \`If-None-Match\` of that rated body, so the copy the client holds is the current one.`,
    '',
    ...interleavedTable(list.hello, listColumns(list), '2xx; 304 for list 304'),
    '',
    `Provider calls during these rounds (hello included, warm-up included), counted as above. The sandbox logs no bodies, so a list load (\`POST /conversations/search\` by contact) and the reconciler's conversation search look alike: each look (its \`POST /tickets/search\`, which the list never sends) takes the conversation search sent with it; the list's loads and reads of the user's requests within 1 s after a look are the reads again of what it found; a load or read at least ${fixed(ttlMs / 1000, 0)} s after the one before of the same key is the TTL's refresh.`,
    '',
    '| | list poll rounds |',
    '|---|---:|',
    row('provider calls, all kinds', calls.total),
    row('reconciler looks (searches)', `${calls.reconcilerLooks} (${calls.reconcilerSearches})`),
    row('list loads (`POST /conversations/search` by contact)', calls.listLoads),
    row("`GET /conversations/{id}` of the user's requests", calls.conversationReads),
    row('… loads and reads within 1 s after a look (TTL refreshes aside)', calls.reconcilerReads),
    row('… loads and reads that are TTL refreshes', calls.ttlRefreshes),
    row('by kind', kinds(calls)),
    row('polls answered (expected status)', list.list200.okResponses + list.list304.okResponses),
    '',
  ];
}

const msList = (values: readonly number[]) =>
  values.map((v) => (Number.isNaN(v) ? 'not seen' : fixed(v, 0))).join(', ');

function invalidationSection(phase: Invalidation): string[] {
  const reads = invalidationReads(phase);
  const seen = phase.visibleMs.filter((v) => !Number.isNaN(v));
  return [
    `## One provider call per invalidation: ${phase.replies} operator replies under ${phase.pollers} pollers`,
    '',
    `- ${phase.pollers} autocannon connections poll \`GET /api/conversations/:id\` of the one conversation with its owner's token and no \`If-None-Match\` (every answer a 200), from ${fixed(LEAD_MS / 1000, 1)} s before the first reply until the poll shows every reply and the inbox has processed every webhook, then ${fixed(TAIL_MS / 1000, 1)} s more.`,
    `- ${phase.replies} operator replies (\`sandbox.operator.reply\`), one every ${phase.spacingMs} ms: each a signed webhook to \`POST /webhooks/support\`, stored, processed by the inbox worker, which invalidates the conversation in the read cache. The next poll reads it from Intercom once, for all pollers.`,
    `- A probe polls every ${PROBE_MS} ms with its last ETag and notes when each reply first shows; the times below are late by up to that much.`,
    phaseComplete(phase)
      ? `- Afterwards the poll showed all ${phase.replies} new messages.`
      : `- **INVALID RUN: the poll showed ${phase.shown} of ${phase.replies} new messages afterwards; ${phase.processed} of ${phase.replies} webhooks processed.**`,
    '',
    '| Metric | Value |',
    '|---|---:|',
    `| pollers (connections) | ${phase.pollers} |`,
    `| phase length | ${fixed(phase.durationMs / 1000, 1)} s |`,
    `| polls answered 200 | ${phase.polls} (${fixed(phase.pollsPerSecond, 0)} /s) |`,
    `| poll latency p50 / p99 | ${fixed(phase.p50Ms)} ms / ${fixed(phase.p99Ms)} ms |`,
    `| other responses, errors, timeouts (probe included) | ${phase.failures} |`,
    `| webhooks processed (invalidations) | ${phase.processed} of ${phase.replies} (${phase.attempts} tries) |`,
    `| \`GET /conversations/{id}\` calls, TTL refreshes aside | ${reads} |`,
    `| calls per invalidation | ${phase.processed === 0 ? '-' : fixed(reads / phase.processed)} |`,
    `| reply → shown by the poll, median / max | ${seen.length === 0 ? '-' : `${fixed(median(seen), 0)} ms / ${fixed(Math.max(...seen), 0)} ms`} |`,
    `| reply → shown, each reply (ms) | ${msList(phase.visibleMs)} |`,
    '',
  ];
}

export function renderChatMarkdown(
  info: RunInfo,
  chat: SeededChat,
  poll: PollResults,
  steady: SteadyCalls,
  list: ListPoll,
  phase: Invalidation,
  checks: readonly Verdict[],
): string {
  const head = interleavedHead(
    'Benchmark: support chat poll',
    'npm run bench -- chat',
    info,
    ['hello', 'poll 200', 'poll 304'],
    chatFailures(poll, list, phase),
  );
  const connections = head.findIndex((line) => line.startsWith('- Connections:'));
  head.splice(
    connections + 1,
    0,
    '- The list poll runs the same way afterwards, in rounds of its own: hello, list 200, list 304, hello, …',
  );
  return [
    ...head,
    '',
    '## Poll: `GET /api/conversations/:id` (warm cache) against bare `GET /hello`',
    '',
    `One user's open conversation: their first message and ${chat.messages - 1} operator replies (HTML bodies of ${chat.replyLengths.join(', ')} characters), delivered as signed webhooks and processed before the load, so the cache is warm and nothing changes during these rounds. The 200 body is ${chat.bodyBytes} bytes. Poll 200 sends no \`If-None-Match\`; poll 304 sends the ETag of an earlier 200.`,
    '',
    ...interleavedTable(poll.hello, columns(poll), '2xx; 304 for poll 304'),
    '',
    ...callsSection(poll, steady, phase),
    ...listSection(list, steady.ttlMs),
    ...invalidationSection(phase),
    ...targetsSection(checks),
    '',
  ].join('\n');
}

export function chatSummary(
  poll: PollResults,
  steady: SteadyCalls,
  list: ListPoll,
  phase: Invalidation,
): string[] {
  return [
    ...shareLines(poll.hello, columns(poll)),
    `provider calls in the poll rounds: ${steady.calls.total} (${steady.calls.ttlRefreshes} TTL refreshes)`,
    'list rounds:',
    ...shareLines(list.hello, listColumns(list)),
    `list answers: ${list.checks.same} identical 200s, ${list.checks.otherButRight} other but right, ` +
      `${list.checks.wrong} wrong; provider calls in the list rounds: ${list.calls.total} ` +
      `(${list.calls.reconcilerSearches} reconciler searches, ${list.calls.reconcilerReads} reads of what they found)`,
    `invalidations: ${phase.processed} of ${phase.replies} replies under ${phase.pollers} pollers, ` +
      `GET /conversations/{id} ${phase.calls.conversationReads} (${phase.calls.ttlRefreshes} TTL refreshes), ` +
      `all calls ${phase.calls.total}; shown ${phase.shown} of ${phase.replies}; failures ${phase.failures}`,
  ];
}
