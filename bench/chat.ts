import { fileURLToPath } from 'node:url';
import { envSchema } from '../src/config.ts';
import { exitCode, measureWithHello, runInfo, settingsFromEnv, writeReport } from './against-hello.ts';
import { listProviderCalls, providerCalls, recordCalls } from './chat-calls.ts';
import { measureInvalidation } from './chat-invalidation.ts';
import { listTargets, reconcilerCaughtUp, seedConversationList } from './chat-list.ts';
import { chatFailures, chatSummary, chatVerdicts, phaseComplete, renderChatMarkdown } from './chat-report.ts';
import { sandboxOf, SEED_REPLIES, seedChat } from './chat-seed.ts';
import { positiveInt, say } from './env.ts';
import { targetLines } from './report.ts';
import { startHello, startService } from './targets.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/chat.md', import.meta.url));
// The read cache's TTL: the config's default, which the bench's service keeps (it sets no SUPPORT_* value).
const CACHE_TTL_MS = envSchema.parse({}).SUPPORT_CACHE_TTL_MS;

/**
 * `npm run bench -- chat`: the conversation poll (200 and 304, warm cache) against bare fastify with the
 * provider calls it made, the same user's list poll with the CSAT overlay likewise, then many pollers of
 * one conversation while operator replies invalidate it.
 */
export async function benchChat(signal: AbortSignal): Promise<number> {
  const settings = settingsFromEnv(signal);
  return withTeardown(async (teardown) => {
    const hello = await startHello(teardown);
    const service = await startService(settings, teardown);
    const log = recordCalls(sandboxOf(service));
    teardown.add('sandbox call log', async () => {
      log.stop();
    });
    say(
      `seeding a support conversation: a user's message and ${SEED_REPLIES} operator replies through webhooks`,
    );
    const chat = await seedChat(service, signal);
    say('seeding the list: three more requests, two closed by the team, one of them rated through /api/csat');
    const seededList = await seedConversationList(service, chat, log, signal);

    const from = log.mark();
    const poll = await measureWithHello(
      settings,
      hello,
      { poll200: chat.poll200, poll304: chat.poll304 },
      'poll 200 and poll 304',
    );
    const steady = {
      calls: providerCalls(log, from, log.mark(), chat.conversationId, CACHE_TTL_MS),
      ttlMs: CACHE_TTL_MS,
    };

    say("list poll: waiting for the reconciler's first look since the seeding");
    const waitedMs = await reconcilerCaughtUp(seededList, log, signal);
    const targets = await listTargets(seededList, signal);
    const listFrom = log.mark();
    const listRounds = await measureWithHello(
      settings,
      hello,
      { list200: targets.list200, list304: targets.list304 },
      'list 200 and list 304',
    );
    const list = {
      seeded: seededList,
      ...listRounds,
      bodyBytes: targets.bodyBytes,
      items: targets.items,
      checks: targets.checks(),
      calls: listProviderCalls(log, listFrom, log.mark(), seededList.conversationIds, CACHE_TTL_MS),
      waitedMs,
    };

    const phaseOptions = {
      pollers: positiveInt('BENCH_CHAT_POLLERS') ?? 200,
      replies: positiveInt('BENCH_CHAT_REPLIES') ?? 10,
      spacingMs: positiveInt('BENCH_CHAT_REPLY_SPACING_MS') ?? 300,
      ttlMs: CACHE_TTL_MS,
      signal,
    };
    say(
      `invalidations: ${phaseOptions.pollers} pollers of the conversation while ${phaseOptions.replies} ` +
        `operator replies arrive, one every ${phaseOptions.spacingMs} ms`,
    );
    const phase = await measureInvalidation(service, chat, log, phaseOptions);

    const info = runInfo(settings, service);
    const checks = chatVerdicts(poll, steady, list, phase);
    const markdown = renderChatMarkdown(info, chat, poll, steady, list, phase, checks);
    await writeReport(REPORT_FILE, markdown, [
      ...chatSummary(poll, steady, list, phase),
      ...targetLines(checks),
    ]);
    const code = exitCode(
      chatFailures(poll, list, phase),
      'unexpected responses (non-2xx; not 304 for the conditional polls), errors, timeouts or list ' +
        'answers without the rating',
    );
    if (phaseComplete(phase)) return code;
    process.stderr.write(
      `bench: the poll showed ${phase.shown} of ${phase.replies} replies, ${phase.processed} webhooks ` +
        'processed; the run is invalid\n',
    );
    return 1;
  });
}
