import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Reads until `check` holds, then answers the value: for effects that land after the response (webhooks
 * processed by the inbox worker, jobs, projections). Fails with the last value after `ms`.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  ms = 5_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

/** Waits until `condition` holds. */
export async function waitUntil(condition: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  await eventually(
    async () => condition(),
    (met) => met,
    ms,
  );
}
