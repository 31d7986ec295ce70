import { createHash, hkdfSync } from 'node:crypto';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEVICES_CATEGORY } from '../../src/events/devices.ts';
import { reached } from '../../src/events/envelope.ts';
import { hardwareIdDigest } from '../../src/lib/device-telemetry.ts';
import { readProcessorCheckpoint } from '../../src/processors/checkpoints.ts';
import { devicesOfUser } from '../../src/queries/devices.ts';
import { TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { databaseText } from '../support/database-text.ts';
import { eventually } from '../support/eventually.ts';

const used = useRunningApp();
const api = clientApi(() => used.running.url);
const sandbox = () => requireSandbox(used.running.support.sandbox);

/** What no table, no log line and no record at the provider may ever hold. */
const RAW_HARDWARE_ID = 'hw-raw-5e0c7f1d-93aa';
/** The digest the service keys with a key of its own from FILE_URL_SECRET (decision 047). */
const DIGEST = hardwareIdDigest(
  Buffer.from(hkdfSync('sha256', TEST_SECRETS.FILE_URL_SECRET, '', 'device-hardware-id', 32)).toString('hex'),
  RAW_HARDWARE_ID,
);

const telemetry = {
  appVersion: '4.2.0 (1187)',
  hardwareId: RAW_HARDWARE_ID,
  osVersion: 'iOS 17.4',
  deviceLang: 'pt-BR',
};
const attributesOf = (t: { appVersion?: string; osVersion?: string; deviceLang?: string }) => ({
  app_version: t.appVersion,
  os_version: t.osVersion,
  device_lang: t.deviceLang,
  hardware_id_digest: DIGEST,
});

const register = (user: string, token: string, body: Record<string, unknown> = {}) =>
  api.post(user, '/devices/register', { platform: 'mobile', token, ...body });
const write = (user: string, body: Record<string, unknown>) =>
  api.post(user, '/conversations', { text: 'My app crashes on start', ...body });

const contactOf = (user: string) =>
  [...sandbox().state.contacts.values()].find((contact) => contact.externalId === user);
/** The contact as Intercom's API shows it (the sandbox's rendering), read through the service's client. */
const providerContact = async (user: string) =>
  z
    .object({ custom_attributes: z.record(z.string(), z.unknown()) })
    .parse(await used.running.support.intercom.findContactByExternalId(user));
/** `PUT /contacts/{id}` calls the sandbox received for the user's contact. */
const updatesOf = (user: string) => {
  const id = contactOf(user)?.id;
  return sandbox().calls.filter((c) => c.method === 'PUT' && id !== undefined && c.path === `/contacts/${id}`)
    .length;
};
const eventsOf = (user: string) =>
  used.db.pool.anyFirst(sql.type(z.object({ event_type: z.string() }))`
    SELECT event_type FROM events WHERE stream_name = ${`userDevices-${user}`} ORDER BY stream_revision`);
/** Waits until the contact-telemetry processor has seen every device event appended so far. */
const telemetryProcessed = async () => {
  const head = await used.running.eventSourcing.store.headPosition([DEVICES_CATEGORY]);
  if (head === null) return;
  await eventually(
    () => readProcessorCheckpoint(used.db.pool, 'contact-telemetry'),
    (at) => reached(at ?? null, head),
  );
};

describe('telemetry of a registered device', () => {
  it('is kept on the device row, the hardware id as a keyed digest, and written on the contact', async () => {
    expect((await write('tel-ada', {})).status).toBe(201);
    const res = await register('tel-ada', 'fcm-tel-ada', { telemetry });
    expect(res.status).toBe(200);

    const [device] = await devicesOfUser(used.db.pool, 'tel-ada');
    expect(device?.telemetry).toEqual({
      appVersion: '4.2.0 (1187)',
      osVersion: 'iOS 17.4',
      deviceLang: 'pt-BR',
      hardwareIdDigest: DIGEST,
    });
    // Keyed: not the plain hash anyone could compute from a list of device ids.
    expect(DIGEST).not.toBe(createHash('sha256').update(RAW_HARDWARE_ID).digest('hex'));

    const contact = await eventually(
      () => providerContact('tel-ada'),
      (found) => Object.keys(found.custom_attributes).length > 0,
    );
    expect(contact.custom_attributes).toEqual(attributesOf(telemetry));
    expect(updatesOf('tel-ada')).toBe(1);
  });

  it('makes no contact for a user who never wrote to support; their first request carries it', async () => {
    expect((await register('tel-bo', 'fcm-tel-bo', { telemetry })).status).toBe(200);
    await telemetryProcessed();
    expect(contactOf('tel-bo')).toBeUndefined();

    expect((await write('tel-bo', { telemetry })).status).toBe(201);
    expect((await providerContact('tel-bo')).custom_attributes).toEqual(attributesOf(telemetry));
    expect(updatesOf('tel-bo')).toBe(1);
  });
});

describe('at most once per change', () => {
  it('writes the same telemetry once, whichever route tells it, and a change once more', async () => {
    const sent = await write('tel-cy', { telemetry });
    expect(sent.status).toBe(201);
    const { conversationId } = z.object({ conversationId: z.string() }).parse(sent.json);
    expect(updatesOf('tel-cy')).toBe(1);

    expect((await write('tel-cy', { conversationId, telemetry })).status).toBe(201);
    expect((await register('tel-cy', 'fcm-tel-cy', { telemetry })).status).toBe(200);
    expect((await register('tel-cy', 'fcm-tel-cy', { telemetry })).status).toBe(200);
    await telemetryProcessed();
    expect(updatesOf('tel-cy')).toBe(1);
    // The second registration told nothing new: one event for both.
    expect(await eventsOf('tel-cy')).toEqual(['deviceRegistered']);

    const updated = { ...telemetry, appVersion: '4.3.0 (1203)' };
    expect((await write('tel-cy', { conversationId, telemetry: updated })).status).toBe(201);
    expect(updatesOf('tel-cy')).toBe(2);
    expect((await providerContact('tel-cy')).custom_attributes).toEqual(attributesOf(updated));

    expect((await register('tel-cy', 'fcm-tel-cy', { telemetry: updated })).status).toBe(200);
    await telemetryProcessed();
    expect(updatesOf('tel-cy')).toBe(2);

    // A field the device no longer tells is cleared at the provider.
    const fewer = { appVersion: updated.appVersion, hardwareId: RAW_HARDWARE_ID, osVersion: 'iOS 18.0' };
    expect((await register('tel-cy', 'fcm-tel-cy', { telemetry: fewer })).status).toBe(200);
    const contact = await eventually(
      () => providerContact('tel-cy'),
      (found) => found.custom_attributes['os_version'] === 'iOS 18.0',
    );
    expect(contact.custom_attributes).toEqual({
      app_version: '4.3.0 (1203)',
      os_version: 'iOS 18.0',
      hardware_id_digest: DIGEST,
    });
    expect(updatesOf('tel-cy')).toBe(3);
    const [device] = await devicesOfUser(used.db.pool, 'tel-cy');
    expect(device?.telemetry).toEqual({
      appVersion: '4.3.0 (1203)',
      osVersion: 'iOS 18.0',
      hardwareIdDigest: DIGEST,
    });
  });
});

describe('bad telemetry', () => {
  const cases: [string, unknown][] = [
    ['an unknown field', { ...telemetry, deviceModel: 'Pixel 8' }],
    ['an app version over 64 characters', { appVersion: '4'.repeat(65) }],
    ['a hardware id over 128 characters', { hardwareId: `${RAW_HARDWARE_ID}-${'x'.repeat(128)}` }],
    ['a number for a string', { appVersion: 4 }],
    ['a null field', { osVersion: null }],
    ['an OS version over two lines', { osVersion: 'iOS\n17.4' }],
    ['a language that is no tag', { deviceLang: 'Brazilian Portuguese' }],
    ['a NUL character', { hardwareId: `${RAW_HARDWARE_ID}\u0000` }],
    ['telemetry that is not an object', 'iOS 17.4'],
  ];
  const refused = async (res: { status: number; headers: Headers; json: unknown }) => {
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.json).toMatchObject({ code: 'validation_failed' });
  };
  /**
   * Intercom calls that write. Reads (the reconciler's searches, a webhook's refetch) come on their own
   * schedule.
   */
  const providerCalls = () =>
    sandbox().calls.filter((c) => c.method !== 'GET' && !c.path.endsWith('/search')).length;

  it.each(cases)('refuses %s at registration: 400, nothing stored, nothing sent', async (_name, bad) => {
    const calls = providerCalls();
    await refused(await register('tel-eve', 'fcm-tel-eve', { telemetry: bad }));
    expect(await eventsOf('tel-eve')).toEqual([]);
    expect(await devicesOfUser(used.db.pool, 'tel-eve')).toEqual([]);
    expect(providerCalls()).toBe(calls);
  });

  it.each(cases)('refuses %s with a request: 400, nothing stored, nothing sent', async (_name, bad) => {
    const calls = providerCalls();
    await refused(await write('tel-fay', { telemetry: bad }));
    expect(contactOf('tel-fay')).toBeUndefined();
    expect(providerCalls()).toBe(calls);
  });
});

describe('the raw hardware id', () => {
  it('is in no table, no record at the provider and no log line', async () => {
    await telemetryProcessed();
    expect(await databaseText(used.db.pool)).not.toContain(RAW_HARDWARE_ID);
    const { state } = sandbox();
    const records = JSON.stringify([
      ...state.contacts.values(),
      ...state.conversations.values(),
      ...state.tickets.values(),
      ...state.notes.values(),
    ]);
    expect(records).toContain(DIGEST);
    expect(records).not.toContain(RAW_HARDWARE_ID);
    expect(used.running.logs.text).not.toContain(RAW_HARDWARE_ID);
  });
});
