import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { Result } from 'autocannon';
import { z } from 'zod';
import { ownerSession } from './channel-seed.ts';
import { seedChat } from './chat-seed.ts';
import { positiveInt } from './env.ts';
import { serveOrchestrator } from './fleet-ipc.ts';
import { loopMonitor } from './fleet-stats.ts';
import { launch, type Target } from './load.ts';
import { type FakesEnv, fakesHandlers, hostFakes } from './push-fakes.ts';
import { fakesEnvSchema, type PollRound, type PushWindow } from './push-messages.ts';
import { startPushService } from './push-service.ts';
import { collectGarbage, kernelPeakRss, resetKernelPeak, sampleRss } from './rss.ts';
import { startHello } from './targets.ts';
import { createTeardown } from './teardown.ts';

/**
 * The service's process of the push bench (forked by push.ts): the real app with production settings
 * (push-service.ts) on the orchestrator's PostgreSQL (DATABASE_URL), its senders pointed at the fakes;
 * the bare fastify route and the chat poll's autocannon in the same process, as in the chat bench. It
 * prepares the channel and the chat when asked, runs the poll rounds, and reports its memory.
 */

const POLL_CONNECTIONS = positiveInt('BENCH_CONNECTIONS') ?? 50;
const created = z.object({ id: z.uuid() });

function okCount(target: Target, r: Result): number {
  if (target.expectedStatus === undefined) return r['2xx'];
  return r.statusCodeStats?.[`${target.expectedStatus}`]?.count ?? 0;
}

function failureCount(target: Target, r: Result): number {
  const answered = r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
  const unexpected = target.expectedStatus === undefined ? r.non2xx : answered - okCount(target, r);
  return unexpected + r.errors + r.timeouts;
}

async function main(): Promise<void> {
  const teardown = createTeardown();
  const halt = new AbortController();
  teardown.add('rounds', async () => {
    halt.abort();
  });
  const inline = process.env.BENCH_PUSH_FAKES === 'inline';
  const host = inline ? await hostFakes() : null;
  if (host) teardown.add('push fakes', () => host.close());
  const fakes: FakesEnv = host
    ? host.env
    : fakesEnvSchema.parse(JSON.parse(process.env.BENCH_PUSH_FAKES_ENV ?? '{}'));
  const service = await startPushService(
    {
      logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
      poolSize: positiveInt('BENCH_POOL_SIZE'),
      fakes,
      pushWorkers: positiveInt('BENCH_PUSH_WORKERS'),
      messengerPerSecond: positiveInt('BENCH_PUSH_MESSENGER_PER_SECOND'),
    },
    teardown,
  );
  const hello = await startHello(teardown);
  let poll304: Target | null = null;
  const targets = (): Record<'hello' | 'poll304', Target> => {
    if (!poll304) throw new Error('prepare first');
    return { hello, poll304 };
  };
  const latencies = new Map<string, RecordableHistogram>();
  const histogram = (key: string) => {
    let found = latencies.get(key);
    if (!found) {
      found = createHistogram();
      latencies.set(key, found);
    }
    return found;
  };

  // Every 50 ms (the kernel's own high-water mark catches what falls between samples).
  const rss = sampleRss(50);
  teardown.add('rss sampler', async () => {
    rss.stop();
  });
  let loop: ReturnType<typeof loopMonitor> | null = null;
  let profiler: Session | null = null;
  let profiles = 0;
  const profileDir = process.env.BENCH_PUSH_CPU_PROFILE;
  let baseline = { rss: 0, heapUsed: 0 };

  const handlers = {
    ...(host
      ? Object.fromEntries(Object.entries(fakesHandlers(host)).map(([k, v]) => [`fakes.${k}`, v]))
      : {}),
    prepare: async (posts: unknown) => {
      const chat = await seedChat(service, halt.signal);
      poll304 = chat.poll304;
      const { admin, post } = await ownerSession(service, halt.signal);
      const channel = created.parse(await post('/admin/channels', { title: 'Push bench channel' }, 201));
      const postIds: string[] = [];
      for (let n = 0; n < z.number().int().positive().parse(posts); n++) {
        const text = `Push bench post ${n}: ${'news that every user with a device is told about. '.repeat(3)}`;
        postIds.push(created.parse(await post(`/admin/channels/${channel.id}/posts`, { text }, 201)).id);
      }
      return {
        channelId: channel.id,
        postIds,
        admin,
        chat: { messages: chat.messages, bodyBytes: chat.bodyBytes },
        poolSize: service.poolSize ?? null,
        pushWorkers: service.config.PUSH_WORKERS,
        messengerPerSecond: service.config.MESSENGER_MESSAGES_PER_SECOND,
        pollConnections: POLL_CONNECTIONS,
      };
    },
    round: async (raw: unknown): Promise<PollRound> => {
      const {
        key,
        target: name,
        seconds,
      } = z
        .object({ key: z.string(), target: z.enum(['hello', 'poll304']), seconds: z.number().positive() })
        .parse(raw);
      const target = targets()[name];
      const startedAt = Date.now();
      // Warm-ups pass no key worth keeping: their latencies go to a histogram of their own.
      const run = await launch(target, POLL_CONNECTIONS, seconds, halt.signal, histogram(`${key}:${name}`))
        .done;
      return {
        startedAt,
        endedAt: Date.now(),
        requestsPerSecond: run.requests.average,
        ok: okCount(target, run),
        failures: failureCount(target, run),
      };
    },
    latency: (raw: unknown) => {
      const { key, target } = z.object({ key: z.string(), target: z.string() }).parse(raw);
      const h = histogram(`${key}:${target}`);
      return { p50Ms: h.percentile(50) / 1000, p99Ms: h.percentile(99) / 1000 };
    },
    windowOpen: async () => {
      collectGarbage();
      const memory = process.memoryUsage();
      baseline = { rss: memory.rss, heapUsed: memory.heapUsed };
      const kernelReset = resetKernelPeak();
      rss.reset();
      loop = loopMonitor();
      if (profileDir) {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      return { kernelReset };
    },
    windowClose: async (): Promise<PushWindow> => {
      const sampled = rss.peak();
      const kernel = kernelPeakRss();
      const memory = process.memoryUsage();
      const reading = {
        baselineRssBytes: baseline.rss,
        baselineHeapUsedBytes: baseline.heapUsed,
        peakRssBytes: Math.max(sampled, kernel ?? 0),
        sampledPeakRssBytes: sampled,
        kernelPeakRssBytes: kernel ?? null,
        endRssBytes: memory.rss,
        endHeapUsedBytes: memory.heapUsed,
        loopDelayP99Ms: loop?.p99Ms() ?? null,
        loopDelayMaxMs: loop?.maxMs() ?? null,
        profile: null as string | null,
        endHeapAfterGcBytes: 0,
      };
      loop?.stop();
      loop = null;
      // What the window left alive, as opposed to garbage not yet collected.
      collectGarbage();
      reading.endHeapAfterGcBytes = process.memoryUsage().heapUsed;
      if (profiler && profileDir) {
        const { profile } = await profiler.post('Profiler.stop');
        profiler.disconnect();
        profiler = null;
        profiles += 1;
        reading.profile = join(profileDir, `push-window-${profiles}.cpuprofile`);
        await writeFile(reading.profile, JSON.stringify(profile));
      }
      return reading;
    },
  };
  serveOrchestrator(handlers, { base: service.base, inline }, async () => {
    loop?.stop();
    if (!(await teardown.run())) process.exitCode = 1;
  });
}

try {
  await main();
} catch (error) {
  process.stderr.write(
    `push service: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
