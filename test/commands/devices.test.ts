import { describe, it } from 'vitest';
import { devicesDecider } from '../../src/commands/devices.ts';
import type { DeviceEvent } from '../../src/events/devices.ts';
import type { DeviceTelemetry } from '../../src/lib/device-telemetry.ts';
import { specFor } from '../support/decider.ts';

const given = specFor(devicesDecider);

const registered = (
  token: string,
  platform: 'mobile' | 'tma' = 'mobile',
  telemetry?: DeviceTelemetry,
): DeviceEvent => ({
  type: 'deviceRegistered',
  data: {
    token,
    platform,
    provider: platform === 'mobile' ? 'fcm' : 'telegram',
    ...(telemetry === undefined ? {} : { telemetry }),
  },
});
const v1 = { appVersion: '4.1.0', osVersion: 'iOS 17.4', hardwareIdDigest: 'a1'.repeat(32) };
const v2 = { appVersion: '4.2.0', osVersion: 'iOS 17.4', hardwareIdDigest: 'a1'.repeat(32) };
const unregistered = (token: string, reason: 'logout' | 'movedToAnotherUser' = 'logout'): DeviceEvent => ({
  type: 'deviceUnregistered',
  data: { token, reason },
});
const rejected = (token: string): DeviceEvent => ({
  type: 'deviceRejectedByProvider',
  data: { token, provider: 'fcm', reason: 'unregistered' },
});

describe('devices decider: register', () => {
  it('registers a new token, naming the push service its platform uses', () => {
    given([])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: false })
      .then([registered('fcm-1')]);
    given([])
      .when({ type: 'register', platform: 'tma', token: '42', listed: false })
      .then([registered('42', 'tma')]);
  });

  it('registers nothing for the same (user, token) again while it is listed', () => {
    given([registered('fcm-1')])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: true })
      .then([]);
  });

  it('registers again when the read side no longer lists the token for this user', () => {
    given([registered('fcm-1')])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: false })
      .then([registered('fcm-1')]);
  });

  it('registers again when the platform changed', () => {
    given([registered('7', 'mobile')])
      .when({ type: 'register', platform: 'tma', token: '7', listed: true })
      .then([registered('7', 'tma')]);
  });

  it('registers a token again after it was unregistered or rejected', () => {
    given([registered('fcm-1'), unregistered('fcm-1')])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: false })
      .then([registered('fcm-1')]);
    given([registered('fcm-1'), rejected('fcm-1')])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: false })
      .then([registered('fcm-1')]);
  });
});

describe('devices decider: telemetry', () => {
  it('registers the telemetry a new device tells', () => {
    given([])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: false, telemetry: v1 })
      .then([registered('fcm-1', 'mobile', v1)]);
  });

  it('registers nothing when a listed device tells the same telemetry again, or none', () => {
    given([registered('fcm-1', 'mobile', v1)])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: true, telemetry: { ...v1 } })
      .then([]);
    given([registered('fcm-1', 'mobile', v1)])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: true })
      .then([]);
    given([registered('fcm-1', 'mobile', v1)])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: true, telemetry: {} })
      .then([]);
  });

  it('registers again with the new telemetry when it changed', () => {
    given([registered('fcm-1', 'mobile', v1)])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: true, telemetry: v2 })
      .then([registered('fcm-1', 'mobile', v2)]);
  });

  it('carries the telemetry told before into a registration that tells none', () => {
    given([registered('7', 'mobile', v1)])
      .when({ type: 'register', platform: 'tma', token: '7', listed: true })
      .then([registered('7', 'tma', v1)]);
    given([registered('fcm-1', 'mobile', v1)])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: false })
      .then([registered('fcm-1', 'mobile', v1)]);
  });

  it('forgets the telemetry of a device once it is unregistered', () => {
    given([registered('fcm-1', 'mobile', v1), unregistered('fcm-1')])
      .when({ type: 'register', platform: 'mobile', token: 'fcm-1', listed: false })
      .then([registered('fcm-1')]);
  });
});

describe('devices decider: unregister', () => {
  it('unregisters a registered token with the reason given', () => {
    given([registered('fcm-1')])
      .when({ type: 'unregister', token: 'fcm-1', reason: 'logout' })
      .then([unregistered('fcm-1')]);
    given([registered('fcm-1')])
      .when({ type: 'unregister', token: 'fcm-1', reason: 'movedToAnotherUser' })
      .then([unregistered('fcm-1', 'movedToAnotherUser')]);
  });

  it('does nothing for a token that is not registered (never registered, or gone already)', () => {
    given([]).when({ type: 'unregister', token: 'fcm-1', reason: 'logout' }).then([]);
    given([registered('fcm-1'), unregistered('fcm-1')])
      .when({ type: 'unregister', token: 'fcm-1', reason: 'logout' })
      .then([]);
    given([registered('fcm-2')])
      .when({ type: 'unregister', token: 'fcm-1', reason: 'logout' })
      .then([]);
  });
});

describe('devices decider: rejected by the push provider', () => {
  it('records a rejection of a registered token', () => {
    given([registered('fcm-1')])
      .when({ type: 'rejectByProvider', token: 'fcm-1', provider: 'fcm', reason: 'unregistered' })
      .then([rejected('fcm-1')]);
  });

  it('ignores a rejection of a token the user no longer has', () => {
    given([registered('fcm-1'), unregistered('fcm-1')])
      .when({ type: 'rejectByProvider', token: 'fcm-1', provider: 'fcm', reason: 'unregistered' })
      .then([]);
  });
});
