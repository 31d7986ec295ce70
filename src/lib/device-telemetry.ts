import { createHmac } from 'node:crypto';
import { z } from 'zod';

// What the SDK tells about the device it runs on (spec: the `telemetry` property), in the form the service
// keeps and sends on: the hardware id only as a keyed digest (decision 047). The devices domain carries it in
// its events, the support chat writes it on the user's contact, and HTTP takes it in.

/** The longest value of each field the API accepts. */
export const TELEMETRY_LIMITS = {
  appVersion: 64,
  osVersion: 64,
  /** RFC 5646 asks implementations to take language tags of at least 35 characters. */
  deviceLang: 35,
  hardwareId: 128,
} as const;

/** A BCP 47-like language tag: `en`, `pt-BR`, `zh-Hant-TW`, `es-419`. */
export const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;

/** HMAC-SHA256, in hex. */
const HARDWARE_ID_DIGEST = /^[0-9a-f]{64}$/;

export const deviceTelemetrySchema = z.object({
  appVersion: z.string().min(1).max(TELEMETRY_LIMITS.appVersion).optional(),
  osVersion: z.string().min(1).max(TELEMETRY_LIMITS.osVersion).optional(),
  deviceLang: z.string().max(TELEMETRY_LIMITS.deviceLang).regex(LANGUAGE_TAG).optional(),
  hardwareIdDigest: z.string().regex(HARDWARE_ID_DIGEST).optional(),
});
/** Telemetry as kept: never the raw hardware id. */
export type DeviceTelemetry = z.infer<typeof deviceTelemetrySchema>;

/**
 * The hardware id as the service keeps it. Keyed, so that a table or an event read elsewhere cannot be
 * matched against a list of known device ids by hashing them.
 */
export const hardwareIdDigest = (key: string, hardwareId: string): string =>
  createHmac('sha256', key).update(hardwareId, 'utf8').digest('hex');

const FIELDS = ['appVersion', 'osVersion', 'deviceLang', 'hardwareIdDigest'] as const;

/** The fields that are set, in a fixed order: undefined when none is (no telemetry at all). */
export function telemetryOrNone(telemetry: DeviceTelemetry | undefined): DeviceTelemetry | undefined {
  if (telemetry === undefined) return undefined;
  const set = FIELDS.flatMap((field) => (telemetry[field] === undefined ? [] : [[field, telemetry[field]]]));
  return set.length === 0 ? undefined : (Object.fromEntries(set) as DeviceTelemetry);
}

/** Whether two telemetry records say the same (absent and empty alike). */
export function sameTelemetry(a: DeviceTelemetry | undefined, b: DeviceTelemetry | undefined): boolean {
  return FIELDS.every((field) => a?.[field] === b?.[field]);
}
