import type { Logger } from 'pino';
import type { DatabasePool } from '../db/pool.ts';
import type { IntercomClient } from '../integrations/intercom/client.ts';
import { digest } from '../lib/digest.ts';
import type { DeviceTelemetry } from '../lib/device-telemetry.ts';
import { contactTelemetryOf, saveContactTelemetry, withUserContactLock } from './user-contacts.ts';

/** The contact's custom attributes that show the user's app and device to operators (decision 047). */
export const TELEMETRY_ATTRIBUTES = {
  appVersion: 'app_version',
  osVersion: 'os_version',
  deviceLang: 'device_lang',
  hardwareIdDigest: 'hardware_id_digest',
} as const satisfies Record<keyof DeviceTelemetry, string>;

const FIELDS = Object.keys(TELEMETRY_ATTRIBUTES) as (keyof DeviceTelemetry)[];

/** Every attribute, in a fixed order; null clears what an older telemetry set and this one does not. */
export function telemetryAttributes(telemetry: DeviceTelemetry): Record<string, string | null> {
  return Object.fromEntries(FIELDS.map((field) => [TELEMETRY_ATTRIBUTES[field], telemetry[field] ?? null]));
}

export interface ContactTelemetryDeps {
  readonly pool: DatabasePool;
  readonly intercom: Pick<IntercomClient, 'updateContact'>;
}

export type TelemetryOutcome = 'written' | 'unchanged' | 'noContact';

/**
 * Writes the device's telemetry on the user's contact, at most once per change: `user_contacts` keeps a
 * digest of the attributes last written, and the same attributes again make no call. Writers of one user
 * take turns under the contact's lock, so two requests with the same new telemetry make one call. A user
 * without a contact has never written to support: no contact is made for this, and the telemetry reaches
 * the contact with their first request (the SDK sends it along). A failed call leaves the digest as it
 * was, so the next report tries again.
 */
export async function writeContactTelemetry(
  deps: ContactTelemetryDeps,
  userId: string,
  telemetry: DeviceTelemetry,
): Promise<TelemetryOutcome> {
  const attributes = telemetryAttributes(telemetry);
  const wanted = digest(JSON.stringify(attributes));
  // Most reports change nothing: one read, no lock.
  const seen = await contactTelemetryOf(deps.pool, userId);
  if (seen === null) return 'noContact';
  if (seen.telemetryDigest === wanted) return 'unchanged';
  return withUserContactLock(deps.pool, userId, async (tx) => {
    const held = await contactTelemetryOf(tx, userId);
    if (held === null) return 'noContact';
    if (held.telemetryDigest === wanted) return 'unchanged';
    await deps.intercom.updateContact(held.contactId, { customAttributes: attributes });
    await saveContactTelemetry(tx, userId, held.contactId, wanted);
    return 'written';
  });
}

/**
 * The telemetry a support request came with, best effort after the message went: the request never fails
 * for it. Logs name the fields only, never what the user wrote.
 */
export async function reportContactTelemetry(
  deps: ContactTelemetryDeps & { readonly logger: Logger },
  userId: string,
  telemetry: DeviceTelemetry,
): Promise<void> {
  try {
    const outcome = await writeContactTelemetry(deps, userId, telemetry);
    if (outcome === 'written') deps.logger.info({ telemetry }, 'device telemetry written on the contact');
  } catch (error) {
    deps.logger.warn({ err: error }, 'device telemetry not written on the contact');
  }
}
