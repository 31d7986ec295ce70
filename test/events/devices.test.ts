import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { devicesStream } from '../../src/events/devices.ts';
import type { EventToAppend } from '../../src/events/envelope.ts';
import { upcast } from '../../src/events/upcasters.ts';
import { devicesOfUser } from '../../src/queries/devices.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { sessionToken } from '../support/jwt.ts';

/** deviceRegistered as version 1 wrote it: no `provider`, the push service implied by the platform. */
function registeredV1(platform: 'mobile' | 'tma', token: string): EventToAppend {
  return {
    id: randomUUID(),
    type: 'deviceRegistered',
    data: { platform, token },
    metadata: {
      actor: { type: 'user', id: 'old-client' },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: '2025-06-01T12:00:00.000Z',
      schemaVersion: 1,
    },
  };
}

describe('deviceRegistered v1 -> v2', () => {
  it('names the push service that the platform implied', () => {
    const mobile = registeredV1('mobile', 'fcm-1');
    expect(upcast(mobile)).toEqual({
      ...mobile,
      data: { platform: 'mobile', token: 'fcm-1', provider: 'fcm' },
      metadata: { ...mobile.metadata, schemaVersion: 2 },
    });
    expect(upcast(registeredV1('tma', '42')).data).toEqual({
      platform: 'tma',
      token: '42',
      provider: 'telegram',
    });
  });

  it('leaves current versions and other types as they are', () => {
    const v2 = { ...registeredV1('mobile', 'x'), data: { platform: 'mobile', token: 'x', provider: 'fcm' } };
    v2.metadata = { ...v2.metadata, schemaVersion: 2 };
    expect(upcast(v2)).toBe(v2);
    const other = { ...registeredV1('mobile', 'x'), type: 'deviceUnregistered' };
    expect(upcast(other)).toBe(other);
  });

  it('refuses a v1 event that does not have the v1 shape', () => {
    const broken = { ...registeredV1('mobile', 'x'), data: { platform: 'desktop', token: 'x' } };
    expect(() => upcast(broken)).toThrow();
  });
});

describe('stored v1 events in the running service', () => {
  const service = useRunningApp();

  it('are projected, decided on and read back as v2, while the stored row stays v1', async () => {
    const stored = registeredV1('mobile', 'legacy-token');
    const { position } = await service.running.eventSourcing.store.append(
      devicesStream('legacy'),
      [stored],
      'no_stream',
    );
    expect(await service.running.eventSourcing.waiter.waitFor(['devices'], position)).toBe(true);

    const [device] = await devicesOfUser(service.db.pool, 'legacy');
    expect(device).toMatchObject({ token: 'legacy-token', platform: 'mobile', provider: 'fcm' });
    expect(device?.registeredAt.toISOString()).toBe('2025-06-01T12:00:00.000Z');

    // The decider folds the upcast event: registering the same token again appends nothing.
    const again = await fetch(`${service.running.url}/api/devices/register`, {
      method: 'POST',
      headers: {
        ...bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'legacy')),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ platform: 'mobile', token: 'legacy-token' }),
    });
    expect(again.status).toBe(200);
    const [read] = await service.running.eventSourcing.store.readStream(devicesStream('legacy'));
    expect(read?.data).toEqual({ platform: 'mobile', token: 'legacy-token', provider: 'fcm' });
    expect(read?.metadata.schemaVersion).toBe(2);

    const rows = await service.db.pool.any(sql.type(z.object({ data: z.unknown(), version: z.number() }))`
      SELECT data, (metadata->>'schemaVersion')::int AS version FROM events
      WHERE stream_name = ${devicesStream('legacy')}`);
    // Still version 1 as stored; its token sealed on the way in (decision 048).
    expect(rows).toMatchObject([{ data: { platform: 'mobile', token: { sealed: 'v1' } }, version: 1 }]);
    expect(JSON.stringify(rows)).not.toContain('legacy-token');
  });
});
