import { DEVICES_CATEGORY, deviceCodec, userOfDevicesStream } from '../events/devices.ts';
import type { DeviceTelemetry } from '../lib/device-telemetry.ts';
import type { Processor } from './processor.ts';
import { providerFailure } from './provider-failure.ts';

/**
 * What writing telemetry on a contact needs of the support side; the wiring fills it from `user_contacts`
 * and the Intercom client. A failure should be the client's own error: its `kind` and `retryAfterMs` steer
 * the retries.
 */
export interface ContactTelemetryPort {
  /**
   * Writes the telemetry on the user's contact unless it is what was written there last. Never makes a
   * contact: a user without one answers `noContact`.
   */
  write(userId: string, telemetry: DeviceTelemetry): Promise<'written' | 'unchanged' | 'noContact'>;
}

/**
 * A device's telemetry on the user's contact at the support provider (decision 047), after the
 * registration's 200, never delaying it. A registration appends an event only when something changed, and
 * the port writes only what differs from the contact's last write, so a redelivered event or a user's two
 * devices that tell the same make no second call. Logs carry the telemetry's fields, never more.
 */
export function contactTelemetryProcessor(port: ContactTelemetryPort): Processor {
  return {
    name: 'contact-telemetry',
    categories: [DEVICES_CATEGORY],
    handles: ['deviceRegistered'],
    async process(recorded, context) {
      const event = deviceCodec.parse(recorded);
      // Absent: not told; null: erased with its user (decision 048).
      if (event.type !== 'deviceRegistered' || event.data.telemetry == null) return;
      const { telemetry } = event.data;
      let outcome: Awaited<ReturnType<ContactTelemetryPort['write']>>;
      try {
        outcome = await port.write(userOfDevicesStream(recorded.streamName), telemetry);
      } catch (error) {
        throw providerFailure('device telemetry not written on the contact', error);
      }
      if (outcome === 'written')
        context.logger.info({ telemetry }, 'device telemetry written on the contact');
      else context.logger.debug({ outcome }, 'device telemetry not written: nothing to write');
    },
  };
}
