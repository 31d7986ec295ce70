// Both push fakes at once, with the environment lines that point the real senders at them.
import { startFakeFcm, type FakeFcm, type FakeFcmOptions } from './fcm.ts';
import { startFakeTelegram, type FakeTelegram, type FakeTelegramOptions } from './telegram.ts';

export * from './fcm.ts';
export * from './telegram.ts';

export interface PushFakes {
  readonly fcm: FakeFcm;
  readonly telegram: FakeTelegram;
  /** The settings that send pushes to these fakes (MESSENGER_BOT_TOKEN: the one token the fake accepts). */
  readonly env: {
    readonly FCM_BASE_URL: string;
    readonly MESSENGER_API_ROOT: string;
    readonly MESSENGER_BOT_TOKEN: string;
  };
  close(): Promise<void>;
}

export async function startPushFakes(
  options: { readonly fcm?: FakeFcmOptions; readonly telegram?: FakeTelegramOptions } = {},
): Promise<PushFakes> {
  const [fcm, telegram] = await Promise.allSettled([
    startFakeFcm(options.fcm),
    startFakeTelegram(options.telegram),
  ]);
  if (fcm.status === 'rejected' || telegram.status === 'rejected') {
    // One started and the other did not: stop the one, so a taken port leaves nothing listening.
    const started = [fcm, telegram].flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    await Promise.allSettled(started.map((fake) => fake.close()));
    throw fcm.status === 'rejected' ? fcm.reason : (telegram as PromiseRejectedResult).reason;
  }
  return {
    fcm: fcm.value,
    telegram: telegram.value,
    env: {
      FCM_BASE_URL: fcm.value.url,
      MESSENGER_API_ROOT: telegram.value.apiRoot,
      MESSENGER_BOT_TOKEN: telegram.value.token,
    },
    close: async () => {
      await Promise.all([fcm.value.close(), telegram.value.close()]);
    },
  };
}
