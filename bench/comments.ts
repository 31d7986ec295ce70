import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'slonik';
import { z } from 'zod';
import { READ_YOUR_WRITES_TIMEOUT_MS } from '../src/projections/progress.ts';
import {
  type CommentPosting,
  commentsFailures,
  commentsSummary,
  commentsVerdicts,
  renderCommentsMarkdown,
} from './comments-report.ts';
import { benignTexts, seedComments } from './comments-seed.ts';
import { measureContentSafety } from './content-safety.ts';
import { exitCode, measureWithHello, runInfo, settingsFromEnv, writeReport } from './against-hello.ts';
import { positiveInt, say } from './env.ts';
import { cyclingPosts, measureInterleaved } from './load.ts';
import { targetLines } from './report.ts';
import { type Service, startHello, startService } from './targets.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/comments.md', import.meta.url));
const TEXT_LENGTH = 200;
const TEXTS = 1_000;

/**
 * `npm run bench -- comments`: the content-safety check alone, then the comment poll (200 and 304)
 * against bare fastify, then comments posted by distinct users.
 */
export async function benchComments(signal: AbortSignal): Promise<number> {
  const settings = settingsFromEnv(signal);
  const { load, rounds } = settings;
  return withTeardown(async (teardown) => {
    // First, with nothing else running: the calls are synchronous and would stall requests in flight.
    say('the content-safety check alone on 2,000-character texts');
    const dlp = await measureContentSafety();
    const hello = await startHello(teardown);
    const service = await startService(settings, teardown);
    say('seeding a channel with two published posts, and comments on one of them, through the API');
    const seeded = await seedComments(service, TEXT_LENGTH, signal);
    const poll = await measureWithHello(
      settings,
      hello,
      { poll200: seeded.poll200, poll304: seeded.poll304 },
      'poll 200 and poll 304',
    );

    const users = positiveInt('BENCH_COMMENT_USERS') ?? 30_000;
    say(
      `comments: ${TEXT_LENGTH}-character texts from ${users} users, ${load.warmupS} s warm-up, ` +
        `then ${rounds} rounds of ${load.durationS} s`,
    );
    const texts = benignTexts(TEXTS, TEXT_LENGTH);
    const userIds = Array.from({ length: users }, (_, i) => `bench-commenter-${i}`);
    const keyring = process.env.BENCH_COMMENT_KEYS === 'made' ? 'made' : 'new';
    if (keyring === 'made') await makeKeys(service, userIds, signal);
    const tokens = userIds.map((id) => service.sessionToken(id));
    const posts = cyclingPosts(seeded.commentsUrl, tokens, (i) => ({ text: texts[i % texts.length] }));
    const { comments: series } = await measureInterleaved(
      { comments: { ...posts.target, expectedStatus: 201 } },
      { ...load, rounds },
    );
    // The requests autocannon abandoned at the end still run; each waits for the projection at most this long.
    await sleep(READ_YOUR_WRITES_TIMEOUT_MS, undefined, { signal });
    const stored = await service.pool.oneFirst(
      sql.type(z.object({ n: z.coerce.number() }))`
        SELECT count(*) AS n FROM channel_comments WHERE post_id = ${seeded.postId}`,
    );
    const posting: CommentPosting = {
      series,
      users,
      keyring,
      built: posts.built(),
      texts: TEXTS,
      textLength: TEXT_LENGTH,
      stored,
    };

    const info = runInfo(settings, service);
    const checks = commentsVerdicts(poll, posting, dlp);
    const markdown = renderCommentsMarkdown(info, poll, posting, dlp, checks);
    await writeReport(REPORT_FILE, markdown, [
      ...commentsSummary(poll, posting, dlp),
      ...targetLines(checks),
    ]);
    return exitCode(
      commentsFailures(poll, posting),
      'unexpected responses (not 201 for comments; not 304 for the conditional poll), errors or timeouts',
    );
  });
}

/**
 * `BENCH_COMMENT_KEYS=made`: every commenter's data key made (and cached by the service) before the run,
 * as for users who wrote before; by default each commenter is new to the keyring, and half the comments
 * make a key.
 */
async function makeKeys(service: Service, userIds: readonly string[], signal: AbortSignal): Promise<void> {
  say(`making the data keys of ${userIds.length} commenters first`);
  for (const id of userIds) service.eventSourcing.store.prepareFor?.(id);
  for (;;) {
    const made = await service.pool.oneFirst(
      sql.type(z.object({ n: z.coerce.number() }))`
        SELECT count(*) AS n FROM data_keys WHERE user_id = ANY(${sql.array(userIds, 'text')})`,
    );
    if (made >= userIds.length) return;
    await sleep(200, undefined, { signal });
  }
}
