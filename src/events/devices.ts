import { z } from 'zod';
import { deviceTelemetrySchema } from '../lib/device-telemetry.ts';
import type { DomainEvent, EventCodec } from './codec.ts';
import { erasable } from './personal-data.ts';
import { type RecordedEvent, streamName } from './envelope.ts';
import type { Upcaster } from './upcasting.ts';

/** One stream per user: `userDevices-<userId>`. */
export const DEVICES_CATEGORY = 'userDevices';
export const devicesStream = (userId: string): string => streamName(DEVICES_CATEGORY, userId);
export const userOfDevicesStream = (stream: string): string => stream.slice(DEVICES_CATEGORY.length + 1);

export const platformSchema = z.enum(['mobile', 'tma']);
export type Platform = z.infer<typeof platformSchema>;

/** Which push service reaches a device: FCM for the native apps, the Telegram bot for the mini-app. */
export const pushProviderSchema = z.enum(['fcm', 'telegram']);
export type PushProvider = z.infer<typeof pushProviderSchema>;
export const providerOf = (platform: Platform): PushProvider => (platform === 'mobile' ? 'fcm' : 'telegram');

/** The push address: an FCM token or a messenger chat id; null once its user was erased (decision 048). */
const token = erasable(z.string().min(1).max(4096));

export const deviceRegistered = z.object({
  type: z.literal('deviceRegistered'),
  data: z.object({
    platform: platformSchema,
    token,
    provider: pushProviderSchema,
    /** The newest telemetry of the device, the hardware id as a digest (absent when never told). */
    telemetry: erasable(deviceTelemetrySchema).optional(),
  }),
});
export const deviceUnregistered = z.object({
  type: z.literal('deviceUnregistered'),
  data: z.object({ token, reason: z.enum(['logout', 'movedToAnotherUser']) }),
});
export const deviceRejectedByProvider = z.object({
  type: z.literal('deviceRejectedByProvider'),
  data: z.object({ token, provider: pushProviderSchema, reason: z.string().max(200) }),
});

export const deviceEventSchema = z.discriminatedUnion('type', [
  deviceRegistered,
  deviceUnregistered,
  deviceRejectedByProvider,
]);
export type DeviceEvent = z.infer<typeof deviceEventSchema> & DomainEvent;
export type DeviceEventType = DeviceEvent['type'];

/**
 * Version 1 of deviceRegistered had no `provider`: the push service was implied by the platform. Version 2
 * names it, so a platform may one day be reached through another service without rewriting history. Its
 * `telemetry` came later, optional, so events without it are version 2 as they stand.
 */
export const deviceUpcasters: readonly Upcaster[] = [
  {
    type: 'deviceRegistered',
    fromVersion: 1,
    up: (data) => {
      const v1 = z.object({ platform: platformSchema, token }).parse(data);
      return { ...v1, provider: providerOf(v1.platform) };
    },
  },
];

const schemaVersions: Record<DeviceEventType, number> = {
  deviceRegistered: 2,
  deviceUnregistered: 1,
  deviceRejectedByProvider: 1,
};

export const deviceCodec: EventCodec<DeviceEvent> = {
  parse: (recorded: RecordedEvent) => deviceEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: (type) => schemaVersions[type],
};
