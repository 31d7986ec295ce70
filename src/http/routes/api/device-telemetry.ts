import { z } from 'zod';
import {
  type DeviceTelemetry,
  hardwareIdDigest,
  LANGUAGE_TAG,
  TELEMETRY_LIMITS,
  telemetryOrNone,
} from '../../../lib/device-telemetry.ts';
import { idText, lineText } from '../../../lib/text-rules.ts';

// The SDK's `telemetry` property, as `POST /api/devices/register` and `POST /api/conversations` take it:
// exactly these four fields, each optional and bounded; anything else is a 400 (decision 047).

const limits = TELEMETRY_LIMITS;

export const telemetrySchema = z
  .strictObject({
    appVersion: lineText({ max: limits.appVersion })
      .optional()
      .describe("the host app's version, e.g. 4.2.0 (1187)"),
    hardwareId: idText({ max: limits.hardwareId })
      .optional()
      .describe('an id of the device: kept and sent on only as a keyed digest, never as given'),
    osVersion: lineText({ max: limits.osVersion })
      .optional()
      .describe('the operating system and its version, e.g. iOS 17.4'),
    deviceLang: z
      .string()
      .max(limits.deviceLang)
      .regex(LANGUAGE_TAG, 'must be a language tag such as en, pt-BR or zh-Hant-TW')
      .optional()
      .describe("the device's language, a BCP 47 tag such as en or pt-BR"),
  })
  .meta({
    id: 'Telemetry',
    description: "What the device tells about itself, shown to the support team on the user's contact",
  });
export type TelemetryInput = z.infer<typeof telemetrySchema>;

/** The telemetry as the service keeps it (the hardware id digested with `key`); undefined when empty. */
export function keptTelemetry(input: TelemetryInput | undefined, key: string): DeviceTelemetry | undefined {
  if (input === undefined) return undefined;
  const { hardwareId, ...rest } = input;
  return telemetryOrNone({
    ...rest,
    ...(hardwareId === undefined ? {} : { hardwareIdDigest: hardwareIdDigest(key, hardwareId) }),
  });
}
