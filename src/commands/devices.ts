import {
  type DeviceEvent,
  deviceCodec,
  devicesStream,
  type Platform,
  type PushProvider,
  providerOf,
} from '../events/devices.ts';
import type { Position } from '../events/envelope.ts';
import { comparePositions } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { type DeviceTelemetry, sameTelemetry, telemetryOrNone } from '../lib/device-telemetry.ts';
import { type CommandContext, type Decider, handleCommand } from './handler.ts';

export interface RegisteredDevice {
  readonly platform: Platform;
  /** The newest telemetry the device told, if any. */
  readonly telemetry: DeviceTelemetry | undefined;
}

export interface DevicesState {
  /** Registered tokens, their platform and telemetry. */
  readonly tokens: ReadonlyMap<string, RegisteredDevice>;
}

export type DeviceCommand =
  | {
      readonly type: 'register';
      readonly platform: Platform;
      readonly token: string;
      /** Whether the devices list shows this token for this user now (it may have moved away). */
      readonly listed: boolean;
      /** What the device tells about itself this time; absent keeps what it told before. */
      readonly telemetry?: DeviceTelemetry | undefined;
    }
  | { readonly type: 'unregister'; readonly token: string; readonly reason: 'logout' | 'movedToAnotherUser' }
  | {
      readonly type: 'rejectByProvider';
      readonly token: string;
      readonly provider: PushProvider;
      readonly reason: string;
    };

export const devicesDecider: Decider<DeviceCommand, DevicesState, DeviceEvent> = {
  initialState: { tokens: new Map() },

  evolve(state, event) {
    // A token erased with its user (decision 048) names no device any more.
    if (event.data.token === null) return state;
    const tokens = new Map(state.tokens);
    if (event.type === 'deviceRegistered') {
      const { platform, telemetry } = event.data;
      tokens.set(event.data.token, { platform, telemetry: telemetryOrNone(telemetry ?? undefined) });
    } else tokens.delete(event.data.token);
    return { tokens };
  },

  decide(command, state) {
    switch (command.type) {
      case 'register': {
        // The same (user, token) again changes nothing, unless another user took the token meanwhile or
        // the device tells other telemetry. Each registration carries the device's newest telemetry whole,
        // so the read table takes it from the last event alone.
        const held = state.tokens.get(command.token);
        const telemetry = telemetryOrNone(command.telemetry) ?? held?.telemetry;
        const same = held?.platform === command.platform && sameTelemetry(held.telemetry, telemetry);
        if (same && command.listed) return [];
        const { platform, token } = command;
        return [
          {
            type: 'deviceRegistered',
            data: { platform, token, provider: providerOf(platform), ...(telemetry ? { telemetry } : {}) },
          },
        ];
      }
      case 'unregister':
        if (!state.tokens.has(command.token)) return [];
        return [{ type: 'deviceUnregistered', data: { token: command.token, reason: command.reason } }];
      case 'rejectByProvider':
        if (!state.tokens.has(command.token)) return [];
        return [
          {
            type: 'deviceRejectedByProvider',
            data: { token: command.token, provider: command.provider, reason: command.reason },
          },
        ];
    }
  },
};

export interface DevicesDependencies {
  readonly store: EventStore;
  /** The users whose device lists show this token now (the read side). */
  readonly holdersOf: (token: string) => Promise<readonly string[]>;
}

const later = (a: Position | null, b: Position | null): Position | null =>
  a === null ? b : b === null ? a : comparePositions(a, b) >= 0 ? a : b;

const handle = (store: EventStore, userId: string, command: DeviceCommand, context: CommandContext) =>
  handleCommand({
    store,
    stream: devicesStream(userId),
    decider: devicesDecider,
    codec: deviceCodec,
    command,
    context,
  });

/**
 * Registers a device for a user. A token belongs to one user: when it was another user's (a shared
 * phone, a re-login), it is first unregistered from that user's stream, so their history says why it left.
 */
export async function registerDevice(
  deps: DevicesDependencies,
  input: {
    readonly userId: string;
    readonly platform: Platform;
    readonly token: string;
    /** Digested already: the raw hardware id never reaches an event. */
    readonly telemetry?: DeviceTelemetry | undefined;
  },
  context: CommandContext,
): Promise<{ readonly position: Position | null }> {
  const holders = await deps.holdersOf(input.token);
  let position: Position | null = null;
  for (const holder of holders) {
    if (holder === input.userId) continue;
    const moved = await handle(
      deps.store,
      holder,
      { type: 'unregister', token: input.token, reason: 'movedToAnotherUser' },
      { ...context, commandId: `${context.commandId}:moved:${holder}` },
    );
    position = later(position, moved.position);
  }
  const registered = await handle(
    deps.store,
    input.userId,
    {
      type: 'register',
      platform: input.platform,
      token: input.token,
      listed: holders.includes(input.userId),
      telemetry: input.telemetry,
    },
    context,
  );
  return { position: later(position, registered.position) };
}

export async function unregisterDevice(
  deps: Pick<DevicesDependencies, 'store'>,
  input: { readonly userId: string; readonly token: string },
  context: CommandContext,
): Promise<{ readonly position: Position | null }> {
  const result = await handle(
    deps.store,
    input.userId,
    { type: 'unregister', token: input.token, reason: 'logout' },
    context,
  );
  return { position: result.position };
}

/**
 * Unregisters every device of a user, each in its own command (devtools: the user starts over). Answers
 * the position of the last device event, for the caller to wait on.
 */
export async function unregisterEveryDevice(
  deps: Pick<DevicesDependencies, 'store'> & {
    /** The user's devices as the read side lists them. */
    readonly devicesOf: (userId: string) => Promise<readonly { readonly token: string }[]>;
  },
  userId: string,
  context: CommandContext,
): Promise<{ readonly position: Position | null }> {
  let position: Position | null = null;
  for (const device of await deps.devicesOf(userId)) {
    const result = await unregisterDevice(
      deps,
      { userId, token: device.token },
      { ...context, commandId: `${context.commandId}:${device.token}` },
    );
    position = result.position ?? position;
  }
  return { position };
}

/**
 * Removes a device its push service refused for good (a token FCM no longer knows, a chat Telegram cannot
 * find or that kept refusing): an event in the user's device stream, so the read table and a rebuild agree.
 * The command id comes from the push and the token, so a retried send appends nothing twice.
 */
export async function rejectDevice(
  deps: Pick<DevicesDependencies, 'store'>,
  input: {
    readonly userId: string;
    readonly token: string;
    readonly provider: PushProvider;
    readonly reason: string;
  },
  context: CommandContext,
): Promise<{ readonly position: Position | null }> {
  const result = await handle(
    deps.store,
    input.userId,
    { type: 'rejectByProvider', token: input.token, provider: input.provider, reason: input.reason },
    context,
  );
  return { position: result.position };
}
