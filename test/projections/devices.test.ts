import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deviceCodec, devicesStream, type DeviceEvent } from '../../src/events/devices.ts';
import type { RecordedEvent } from '../../src/events/envelope.ts';
import type { DeviceTelemetry } from '../../src/lib/device-telemetry.ts';
import { devicesProjection } from '../../src/projections/devices.ts';
import { createGeneration, tablesOf } from '../../src/projections/projection.ts';
import { useTestDatabase } from '../support/database.ts';
import { deviceTableRows } from '../support/devices.ts';

const db = useTestDatabase();

/** A small seeded generator, so a failing sequence can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function recorded(event: DeviceEvent, userId: string, index: number): RecordedEvent {
  return {
    id: randomUUID(),
    type: event.type,
    data: event.data,
    metadata: {
      actor: { type: 'user', id: userId },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString(),
      schemaVersion: deviceCodec.schemaVersion(event.type),
    },
    streamName: devicesStream(userId),
    streamRevision: BigInt(index),
    position: { commit: BigInt(index + 1), prepare: BigInt(index + 1) },
    recordedAt: new Date(),
  };
}

/**
 * Registrations (with or without telemetry), moves, re-registrations, platform changes, unregistrations and
 * rejections, mixed.
 */
function randomHistory(next: () => number, length: number): RecordedEvent[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return Array.from({ length }, (_, i) => {
    const user = pick(['ann', 'bob', 'cyd']);
    const token = pick(['1', '2', '3', '4']);
    const roll = next();
    const platform = pick(['mobile', 'tma'] as const);
    const telemetry = pick<DeviceTelemetry | undefined>([
      undefined,
      { appVersion: '4.1.0', osVersion: 'iOS 17.4' },
      { appVersion: '4.2.0', deviceLang: 'en-GB', hardwareIdDigest: 'ab'.repeat(32) },
    ]);
    const event: DeviceEvent =
      roll < 0.55
        ? {
            type: 'deviceRegistered',
            data: {
              token,
              platform,
              provider: platform === 'mobile' ? 'fcm' : 'telegram',
              ...(telemetry === undefined ? {} : { telemetry }),
            },
          }
        : roll < 0.9
          ? { type: 'deviceUnregistered', data: { token, reason: 'logout' } }
          : { type: 'deviceRejectedByProvider', data: { token, provider: 'fcm', reason: 'unregistered' } };
    return recorded(event, user, i);
  });
}

const rowsOf = (generation: number) =>
  deviceTableRows(db.pool, tablesOf(devicesProjection, generation).devices);

describe('devices projection', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'a batch has the same effect as its events one by one (history %i)',
    async (seed) => {
      const next = random(seed);
      const history = randomHistory(next, 400);
      const [batched, single] = [seed * 10 + 1, seed * 10 + 2];
      for (const generation of [batched, single])
        await createGeneration(db.pool, devicesProjection, generation);

      // Compared after every batch: a wrong intermediate state is often overwritten by later events.
      let compared = 0;
      for (let i = 0; i < history.length;) {
        const size = 1 + Math.floor(next() * 60);
        const batch = history.slice(i, i + size);
        await db.pool.transaction((tx) =>
          devicesProjection.apply(tx, batch, tablesOf(devicesProjection, batched)),
        );
        for (const event of batch) {
          await devicesProjection.apply(db.pool, [event], tablesOf(devicesProjection, single));
        }
        const expected = await rowsOf(single);
        expect(await rowsOf(batched), `after event ${i + size}`).toEqual(expected);
        compared += expected.length;
        i += size;
      }
      expect(compared).toBeGreaterThan(0);
    },
  );

  it('keeps the first registration time when a device is registered again, and moves the update time', async () => {
    await createGeneration(db.pool, devicesProjection, 200);
    const tables = tablesOf(devicesProjection, 200);
    const register = (index: number, platform: 'mobile' | 'tma') =>
      recorded(
        {
          type: 'deviceRegistered',
          data: { token: '99', platform, provider: platform === 'mobile' ? 'fcm' : 'telegram' },
        },
        'dee',
        index,
      );
    await devicesProjection.apply(db.pool, [register(0, 'mobile')], tables);
    await devicesProjection.apply(db.pool, [register(5, 'tma')], tables);
    const [row] = await rowsOf(200);
    expect(row).toMatchObject({ user_id: 'dee', platform: 'tma', provider: 'telegram' });
    expect(row?.registered_at.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(row?.updated_at.toISOString()).toBe('2026-01-01T00:00:05.000Z');
  });

  it('keeps the telemetry of the last registration, and none when it told none', async () => {
    await createGeneration(db.pool, devicesProjection, 201);
    const tables = tablesOf(devicesProjection, 201);
    const register = (index: number, telemetry?: DeviceTelemetry) =>
      recorded(
        {
          type: 'deviceRegistered',
          data: { token: '77', platform: 'mobile', provider: 'fcm', ...(telemetry ? { telemetry } : {}) },
        },
        'eli',
        index,
      );
    const telemetryOf = async () => {
      const [row] = await rowsOf(201);
      return row && [row.app_version, row.os_version, row.device_lang, row.hardware_id_digest];
    };
    await devicesProjection.apply(
      db.pool,
      [register(0, { appVersion: '1.0', osVersion: 'Android 14' })],
      tables,
    );
    expect(await telemetryOf()).toEqual(['1.0', 'Android 14', null, null]);
    await devicesProjection.apply(db.pool, [register(1, { appVersion: '1.1', deviceLang: 'de' })], tables);
    expect(await telemetryOf()).toEqual(['1.1', null, 'de', null]);
    await devicesProjection.apply(db.pool, [register(2)], tables);
    expect(await telemetryOf()).toEqual([null, null, null, null]);
  });
});
