import type { ProviderCalls } from './chat-calls.ts';
import { type Invalidation, LEAD_MS, PROBE_MS, TAIL_MS } from './chat-invalidation.ts';
import type { SeededChat } from './chat-seed.ts';
import { median } from './load.ts';
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

const columns = pollColumns;

const POLL_304_SHARE = 0.5;
const POLL_200_SHARE = 0.35;

/** Unexpected responses (non-2xx; not 304 for the conditional poll), errors and timeouts, probe included. */
export const chatFailures = (poll: PollResults, phase: Invalidation): number =>
  poll.hello.failures + poll.poll200.failures + poll.poll304.failures + phase.failures;

/** Every reply's webhook processed and every reply shown by the poll afterwards: else the run is invalid. */
export const phaseComplete = (phase: Invalidation): boolean =>
  phase.processed === phase.replies && phase.shown === phase.replies;

/** Reads of the conversation the invalidations caused: the TTL's refreshes are the TTL's doing. */
const invalidationReads = (phase: Invalidation) => phase.calls.conversationReads - phase.calls.ttlRefreshes;
const untimed = (calls: ProviderCalls) =>
  calls.total - calls.ttlRefreshes - calls.reconcilerSearches - calls.reconcilerReads;

export function chatVerdicts(poll: PollResults, steady: SteadyCalls, phase: Invalidation): Verdict[] {
  const s304 = share(poll.poll304, poll.hello);
  const s200 = share(poll.poll200, poll.hello);
  const reads = invalidationReads(phase);
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
  ];
}

const kinds = (calls: ProviderCalls) =>
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
  phase: Invalidation,
  checks: readonly Verdict[],
): string {
  return [
    ...interleavedHead(
      'Benchmark: support chat poll',
      'npm run bench -- chat',
      info,
      ['hello', 'poll 200', 'poll 304'],
      chatFailures(poll, phase),
    ),
    '',
    '## Poll: `GET /api/conversations/:id` (warm cache) against bare `GET /hello`',
    '',
    `One user's open conversation: their first message and ${chat.messages - 1} operator replies (HTML bodies of ${chat.replyLengths.join(', ')} characters), delivered as signed webhooks and processed before the load, so the cache is warm and nothing changes during these rounds. The 200 body is ${chat.bodyBytes} bytes. Poll 200 sends no \`If-None-Match\`; poll 304 sends the ETag of an earlier 200.`,
    '',
    ...interleavedTable(poll.hello, columns(poll), '2xx; 304 for poll 304'),
    '',
    ...callsSection(poll, steady, phase),
    ...invalidationSection(phase),
    ...targetsSection(checks),
    '',
  ].join('\n');
}

export function chatSummary(poll: PollResults, steady: SteadyCalls, phase: Invalidation): string[] {
  return [
    ...shareLines(poll.hello, columns(poll)),
    `provider calls in the poll rounds: ${steady.calls.total} (${steady.calls.ttlRefreshes} TTL refreshes)`,
    `invalidations: ${phase.processed} of ${phase.replies} replies under ${phase.pollers} pollers, ` +
      `GET /conversations/{id} ${phase.calls.conversationReads} (${phase.calls.ttlRefreshes} TTL refreshes), ` +
      `all calls ${phase.calls.total}; shown ${phase.shown} of ${phase.replies}; failures ${phase.failures}`,
  ];
}
