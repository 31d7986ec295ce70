import type { Views } from './channel-views.ts';
import type { Series } from './load.ts';
import {
  fixed,
  interleavedHead,
  interleavedTable,
  percent,
  type RunInfo,
  share,
  shareLines,
  targetsSection,
  type Verdict,
} from './report.ts';

export interface FeedResults {
  readonly hello: Series;
  readonly feed200: Series;
  readonly feed304: Series;
}

const columns = (feed: FeedResults) => ({ 'feed 200': feed.feed200, 'feed 304': feed.feed304 });

const VIEWS_TARGET = 2_000;
const LAG_TARGET_MS = 1_000;

/** Unexpected responses (non-2xx; not 304 for the conditional feed), errors and timeouts, probes included. */
export const channelFailures = (feed: FeedResults, views: Views): number =>
  feed.hello.failures +
  feed.feed200.failures +
  feed.feed304.failures +
  views.series.failures +
  views.probeFailures;

export function channelVerdicts(feed: FeedResults, views: Views): Verdict[] {
  const s304 = share(feed.feed304, feed.hello);
  const s200 = share(feed.feed200, feed.hello);
  return [
    { target: "feed 304 req/s >= 50 % of the bare route's", actual: percent(s304), pass: s304 >= 0.5 },
    { target: "feed 200 req/s >= 25 % of the bare route's", actual: percent(s200), pass: s200 >= 0.25 },
    {
      target: `views >= ${VIEWS_TARGET} /s sustained`,
      actual: `${fixed(views.viewsPerSecond, 0)} /s`,
      pass: views.viewsPerSecond >= VIEWS_TARGET,
    },
    {
      target: `projection lag p99 < ${LAG_TARGET_MS} ms`,
      actual: `${fixed(views.lagP99Ms)} ms`,
      pass: views.lagP99Ms < LAG_TARGET_MS,
    },
  ];
}

function viewsSection(views: Views, info: RunInfo): string[] {
  const repeated = Math.max(0, views.built - views.freshRequests);
  return [
    '## Views ingestion: `POST /api/channel/:id/views`',
    '',
    `- ${views.postsPerRequest} post ids per request, each request with the session token of the next of ${views.users} users (a new window of posts each time the users come round again), ${info.connections} connections, ${info.warmupS} s warm-up then ${info.rounds} rounds of ${info.durationS} s; views/s = req/s (median round) × ${views.postsPerRequest}.`,
    repeated === 0
      ? `- Every (user, post) pair sent was new (${views.built} requests built, ${views.freshRequests} possible).`
      : `- ${repeated} of ${views.built} requests repeated (user, post) pairs already sent (counted once by the projection).`,
    `- Lag: a probe every ~50 ms sends a views request of its own; from its 204 to the \`posts\` projection's first progress (after its batch committed) covering the head of \`userViews\` read right after the 204. An upper bound (the head may be past the probe's event). Warm-up probes are not counted.`,
    '',
    '| Metric | Value |',
    '|---|---:|',
    `| req/s (median round) | ${fixed(views.series.requestsPerSecond, 0)} |`,
    `| req/s by round | ${views.series.rounds.map((r) => fixed(r, 0)).join(', ')} |`,
    `| views/s | ${fixed(views.viewsPerSecond, 0)} |`,
    `| request latency p50 / p99 | ${fixed(views.series.p50Ms)} ms / ${fixed(views.series.p99Ms)} ms |`,
    `| 204 responses | ${views.series.okResponses} |`,
    `| other responses, errors, timeouts (incl. warm-up and probes) | ${views.series.failures + views.probeFailures} |`,
    `| projection lag p50 / p99 / max (${views.probes} probes) | ${fixed(views.lagP50Ms)} / ${fixed(views.lagP99Ms)} / ${fixed(views.lagMaxMs)} ms |`,
    `| projection caught up after the load stopped | ${fixed(views.drainMs, 0)} ms |`,
    `| rows in \`post_views\` afterwards | ${views.storedViews} |`,
    '',
  ];
}

export function renderChannelMarkdown(
  info: RunInfo,
  feed: FeedResults,
  views: Views,
  checks: readonly Verdict[],
): string {
  return [
    ...interleavedHead(
      'Benchmark: channel feed and views ingestion',
      'npm run bench -- channel',
      info,
      ['hello', 'feed 200', 'feed 304'],
      channelFailures(feed, views),
    ),
    '',
    '## Feed: `GET /api/channel/:id/posts` (first page, 20 posts) against bare `GET /hello`',
    '',
    '24 published posts, each with a PNG attachment, two buttons and 👍 from 5 users (the reader among them). Feed 200 sends no `If-None-Match`; feed 304 sends the ETag of an earlier 200.',
    '',
    ...interleavedTable(feed.hello, columns(feed), '2xx; 304 for feed 304'),
    '',
    ...viewsSection(views, info),
    ...targetsSection(checks),
    '',
  ].join('\n');
}

export function channelSummary(feed: FeedResults, views: Views): string[] {
  return [
    ...shareLines(feed.hello, columns(feed)),
    `views     ${fixed(views.viewsPerSecond, 0).padStart(8)} views/s  lag p50 ${fixed(views.lagP50Ms)} ms  ` +
      `p99 ${fixed(views.lagP99Ms)} ms  max ${fixed(views.lagMaxMs)} ms  failures ${views.series.failures + views.probeFailures}`,
  ];
}
