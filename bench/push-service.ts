import type { FakesEnv } from './push-fakes.ts';
import { type Service, startService } from './targets.ts';
import type { Teardown } from './teardown.ts';

/** The service of the push bench: `startService` (production settings, main.ts's composition) with the
 * senders pointed at the loopback fakes, and the push pace and concurrency when asked. */
export interface PushServiceOptions {
  readonly logLevel: string;
  readonly poolSize: number | undefined;
  readonly fakes: FakesEnv;
  /** PUSH_WORKERS; the config's default (4) when undefined. */
  readonly pushWorkers: number | undefined;
  /** MESSENGER_MESSAGES_PER_SECOND; the config's default (25) when undefined. */
  readonly messengerPerSecond: number | undefined;
}

export type PushService = Service;

export function startPushService(options: PushServiceOptions, teardown: Teardown): Promise<PushService> {
  const optional = (name: string, value: number | undefined) =>
    value === undefined ? {} : { [name]: String(value) };
  return startService(
    {
      logLevel: options.logLevel,
      poolSize: options.poolSize,
      env: {
        ...options.fakes,
        ...optional('PUSH_WORKERS', options.pushWorkers),
        ...optional('MESSENGER_MESSAGES_PER_SECOND', options.messengerPerSecond),
      },
    },
    teardown,
  );
}
