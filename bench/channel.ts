import { fileURLToPath } from 'node:url';
import { channelFailures, channelSummary, channelVerdicts, renderChannelMarkdown } from './channel-report.ts';
import { seedChannel } from './channel-seed.ts';
import { measureViews } from './channel-views.ts';
import { exitCode, measureWithHello, runInfo, settingsFromEnv, writeReport } from './against-hello.ts';
import { positiveInt, say } from './env.ts';
import { targetLines } from './report.ts';
import { startHello, startService } from './targets.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/channel.md', import.meta.url));
const POSTS = 24;

/** `npm run bench -- channel`: the feed (200 and 304) against bare fastify, then views ingestion. */
export async function benchChannel(signal: AbortSignal): Promise<number> {
  const settings = settingsFromEnv(signal);
  const { load, rounds } = settings;
  return withTeardown(async (teardown) => {
    const hello = await startHello(teardown);
    const service = await startService(settings, teardown);
    say(`seeding a channel with ${POSTS} published posts through the admin API`);
    const channel = await seedChannel(service, POSTS, signal);
    const feed = await measureWithHello(
      settings,
      hello,
      { feed200: channel.feed200, feed304: channel.feed304 },
      'feed 200 and feed 304',
    );
    const viewOptions = {
      load,
      rounds,
      users: positiveInt('BENCH_VIEW_USERS') ?? 10_000,
      postsPerRequest: positiveInt('BENCH_VIEWS_PER_REQUEST') ?? 5,
      probeIntervalMs: 50,
    };
    say(
      `views: ${viewOptions.postsPerRequest} post ids per request from ${viewOptions.users} users, ` +
        `${load.warmupS} s warm-up, then ${rounds} rounds of ${load.durationS} s; lag probes every 50 ms`,
    );
    const views = await measureViews(service, channel.channelId, channel.postIds, viewOptions);

    const info = runInfo(settings, service);
    const checks = channelVerdicts(feed, views);
    const markdown = renderChannelMarkdown(info, feed, views, checks);
    await writeReport(REPORT_FILE, markdown, [...channelSummary(feed, views), ...targetLines(checks)]);
    return exitCode(
      channelFailures(feed, views),
      'unexpected responses (non-2xx; not 304 for the conditional feed), errors or timeouts',
    );
  });
}
