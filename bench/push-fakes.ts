import { startPushFakes } from '../src/dev/push-fakes/index.ts';

/**
 * The loopback FCM and Telegram of the push bench, and what the bench reads of them: the FCM fake's
 * count sampled over time (it keeps no message, `record: 1` aside), and every Telegram message with its
 * arrival time. Hosted in a process of their own (`push-fakes-process.ts`), or in the service's process
 * when `BENCH_PUSH_FAKES=inline`.
 */

/** How often the FCM fake's count is sampled. */
const SAMPLE_MS = 20;

export interface FakesEnv {
  readonly FCM_BASE_URL: string;
  readonly MESSENGER_API_ROOT: string;
  readonly MESSENGER_BOT_TOKEN: string;
}

/** The FCM fake since the last `begin`: when its first message came, and its count over time. */
export interface FcmTrace {
  /** Epoch ms of the first send request after `begin`; null when none came. */
  readonly firstAt: number | null;
  readonly count: number;
  /** [epoch ms, count] whenever the count moved (and at `begin`, count 0). */
  readonly samples: readonly (readonly [number, number])[];
}

/** Every sendMessage the Telegram fake answered since it started: [epoch ms, chat id, status]. */
export interface TelegramTrace {
  readonly messages: readonly (readonly [number, string, number])[];
  /** The fake's own reading: the most messages taken (200) within any one second. */
  readonly peak: { readonly overall: number; readonly perChat: number };
}

export interface FakesHost {
  readonly env: FakesEnv;
  /** Forgets the FCM fake's count and first message, and samples the count from now on. */
  begin(): void;
  /** The FCM fake's count now (cheap, for progress). */
  fcmCount(): number;
  fcmTrace(): FcmTrace;
  telegramTrace(): TelegramTrace;
  close(): Promise<void>;
}

export async function hostFakes(): Promise<FakesHost> {
  // record: 1 keeps the first message only, for its arrival time; the count covers the rest.
  const fakes = await startPushFakes({ fcm: { record: 1 } });
  let samples: [number, number][] = [];
  let last = -1;
  const sample = () => {
    const count = fakes.fcm.count;
    if (count !== last) {
      samples.push([Date.now(), count]);
      last = count;
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    env: fakes.env,
    begin() {
      fakes.fcm.clear();
      samples = [];
      last = -1;
      sample();
    },
    fcmCount: () => fakes.fcm.count,
    fcmTrace() {
      sample();
      return { firstAt: fakes.fcm.received()[0]?.at ?? null, count: fakes.fcm.count, samples: [...samples] };
    },
    telegramTrace: () => ({
      messages: fakes.telegram.received().map((m) => [m.at, m.chatId, m.status] as const),
      peak: fakes.telegram.peakRates(),
    }),
    async close() {
      clearInterval(timer);
      await fakes.close();
    },
  };
}

/** The calls the orchestrator makes of the fakes, wherever they run. */
export const fakesHandlers = (host: FakesHost) => ({
  begin: () => {
    host.begin();
  },
  fcmCount: () => host.fcmCount(),
  fcmTrace: () => host.fcmTrace(),
  telegramTrace: () => host.telegramTrace(),
});
