import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { privacyStream } from '../../src/events/privacy.ts';
import type { UsedApp } from './app.ts';

/**
 * What an erasure does to the log of a running app (decision 048): the user's data key goes, so their
 * sealed fields read as null, then `userErased` is appended. Answers once `projections` have applied it.
 */
export async function eraseUser(
  used: UsedApp,
  userId: string,
  projections: readonly string[],
): Promise<void> {
  const { keys, store, waiter } = used.running.eventSourcing;
  await keys.erase(userId);
  const id = randomUUID();
  const at = new Date().toISOString();
  const { position } = await store.append(
    privacyStream(userId),
    [
      {
        id,
        type: 'userErased',
        data: { userId, erasureId: randomUUID(), at },
        metadata: {
          actor: { type: 'system', id: 'test' },
          correlationId: id,
          causationId: null,
          occurredAt: at,
          schemaVersion: 1,
        },
      },
    ],
    'any',
  );
  expect(await waiter.waitFor(projections, position)).toBe(true);
}
