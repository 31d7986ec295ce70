import { POLLED_COMMENTS } from './comments-seed.ts';
import type { measureContentSafety } from './content-safety.ts';
import type { Series } from './load.ts';
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

export interface CommentPosting {
  readonly series: Series;
  /** Distinct users whose session tokens the comments cycle through. */
  readonly users: number;
  /** `new`: no commenter has a data key yet (half the comments make one); `made`: every one has. */
  readonly keyring: 'new' | 'made';
  /** Requests autocannon built (warm-up included). */
  readonly built: number;
  /** Distinct texts the comments cycle through, and their length (the polled comments' too). */
  readonly texts: number;
  readonly textLength: number;
  /** Comments on the post afterwards: every 201, warm-up included. */
  readonly stored: number;
}

export type DlpTiming = Awaited<ReturnType<typeof measureContentSafety>>;

const columns = pollColumns;

const COMMENTS_TARGET = 1_000;
const DLP_P99_TARGET_MS = 2;
const POLL_304_SHARE = 0.5;
// The API's default slow mode, which the bench channel keeps: 3 comments at once per user.
const BURST = 3;

/** Unexpected responses (not 201 for comments; not 304 for the conditional poll), errors and timeouts. */
export const commentsFailures = (poll: PollResults, posting: CommentPosting): number =>
  poll.hello.failures + poll.poll200.failures + poll.poll304.failures + posting.series.failures;

/** The most comments one user sent: the requests went round the users in order. */
const mostPerUser = (posting: CommentPosting) => Math.ceil(posting.built / posting.users);

export function commentsVerdicts(poll: PollResults, posting: CommentPosting, dlp: DlpTiming): Verdict[] {
  const s304 = share(poll.poll304, poll.hello);
  const perSecond = posting.series.requestsPerSecond;
  return [
    {
      target: `comments >= ${COMMENTS_TARGET} /s (distinct users, ${posting.textLength}-char texts, all checks on)`,
      actual: `${fixed(perSecond, 0)} /s`,
      pass: perSecond >= COMMENTS_TARGET,
    },
    {
      target: `DLP check p99 < ${DLP_P99_TARGET_MS} ms (2,000-char texts, the whole checkComment)`,
      actual: `${fixed(dlp.p99Ms)} ms`,
      pass: dlp.p99Ms < DLP_P99_TARGET_MS,
    },
    {
      target: `poll 304 req/s >= ${POLL_304_SHARE * 100} % of the bare route's`,
      actual: percent(s304),
      pass: s304 >= POLL_304_SHARE,
    },
  ];
}

function postingSection(posting: CommentPosting, info: RunInfo): string[] {
  const { series } = posting;
  const most = mostPerUser(posting);
  return [
    '## Comment posting: `POST /api/channel/:id/posts/:postId/comments`',
    '',
    `- JSON \`{ text }\` of ${posting.textLength} characters of benign prose (the next of ${posting.texts} texts, each checked up front to pass \`checkComment\`), each request with the session token of the next of ${posting.users} users (${posting.keyring === 'made' ? 'each with a data key made before the run' : 'none with a data key before its first comment'}), all on one published post of a channel with the API's default slow mode (one comment per 10 s, a burst of ${BURST}); ${info.connections} connections, ${info.warmupS} s warm-up then ${info.rounds} rounds of ${info.durationS} s; comments/s = req/s (median round), every response a 201.`,
    '- Every check on: the post lookup, links and DLP, the slow mode, the ban and comments-open decision, the append to the event store, and the wait until the `comments` projection shows the comment (read-your-writes) before the 201.',
    most <= BURST
      ? `- No user sent more than ${most === 1 ? 'one comment' : `${most} comments`} (${posting.built} requests built, warm-up included), within the burst of ${BURST}: the slow mode is taken but never refuses.`
      : `- **Users came round more than the burst allows: up to ${most} comments each (${posting.built} requests built); raise \`BENCH_COMMENT_USERS\`.**`,
    '',
    '| Metric | Value |',
    '|---|---:|',
    `| comments/s (median round) | ${fixed(series.requestsPerSecond, 0)} |`,
    `| comments/s by round | ${series.rounds.map((r) => fixed(r, 0)).join(', ')} |`,
    `| request latency p50 / p99 | ${fixed(series.p50Ms)} ms / ${fixed(series.p99Ms)} ms |`,
    `| 201 responses | ${series.okResponses} |`,
    `| other responses, errors, timeouts (incl. warm-up) | ${series.failures} |`,
    `| comments on the post afterwards (warm-up and abandoned requests included) | ${posting.stored} |`,
    '',
  ];
}

function dlpSection(dlp: DlpTiming): string[] {
  return [
    '## The DLP check: `checkComment` on 2,000-character texts',
    '',
    `- \`measureContentSafety\` (bench/content-safety.ts): 400 deterministic comments of mixed English and Russian prose with numbers, dates and abbreviations, one in eight ending with a secret or a link; 3,000 calls of warm-up, then ${dlp.samples} timed calls one at a time, in the bench's process before anything else starts.`,
    '- It times the whole check, the link rules included, so it is an upper bound of the DLP part.',
    '',
    '| Metric | Value |',
    '|---|---:|',
    `| calls | ${dlp.samples} |`,
    `| p50 | ${fixed(dlp.p50Ms, 3)} ms |`,
    `| p99 | ${fixed(dlp.p99Ms, 3)} ms |`,
    `| max | ${fixed(dlp.maxMs, 3)} ms |`,
    '',
  ];
}

export function renderCommentsMarkdown(
  info: RunInfo,
  poll: PollResults,
  posting: CommentPosting,
  dlp: DlpTiming,
  checks: readonly Verdict[],
): string {
  return [
    ...interleavedHead(
      'Benchmark: comment posting, the DLP check and the comment poll',
      'npm run bench -- comments',
      info,
      ['hello', 'poll 200', 'poll 304'],
      commentsFailures(poll, posting),
    ),
    '',
    `## Poll: \`GET /api/channel/:id/posts/:postId/comments\` (latest page, ${POLLED_COMMENTS} comments) against bare \`GET /hello\``,
    '',
    `A published post with ${POLLED_COMMENTS} comments of ${posting.textLength} characters by as many users, polled by a reader who wrote none of them. Poll 200 sends no \`If-None-Match\`; poll 304 sends the ETag of an earlier 200.`,
    '',
    ...interleavedTable(poll.hello, columns(poll), '2xx; 304 for poll 304'),
    '',
    ...postingSection(posting, info),
    ...dlpSection(dlp),
    ...targetsSection(checks),
    '',
  ].join('\n');
}

export function commentsSummary(poll: PollResults, posting: CommentPosting, dlp: DlpTiming): string[] {
  const { series } = posting;
  return [
    ...shareLines(poll.hello, columns(poll)),
    `comments  ${fixed(series.requestsPerSecond, 0).padStart(8)} /s     p50 ${fixed(series.p50Ms)} ms  ` +
      `p99 ${fixed(series.p99Ms)} ms  failures ${series.failures}`,
    `DLP check p50 ${fixed(dlp.p50Ms, 3)} ms  p99 ${fixed(dlp.p99Ms, 3)} ms  max ${fixed(dlp.maxMs, 3)} ms`,
  ];
}
