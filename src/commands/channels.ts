import { isDeepStrictEqual } from 'node:util';
import { type ChannelEvent, type ChannelSettings, channelCodec, channelStream } from '../events/channels.ts';
import type { EventStore } from '../events/store/port.ts';
import { invalidTransition, notFound } from '../lib/domain-error.ts';
import { type CommandContext, type CommandResult, type Decider, handleCommand } from './handler.ts';

/** null until the channel is created. */
export type ChannelState = ChannelSettings | null;

export type ChannelCommand =
  | { readonly type: 'create'; readonly settings: ChannelSettings; readonly at: string }
  | { readonly type: 'edit'; readonly change: Partial<ChannelSettings>; readonly at: string };

const settingKeys = [
  'title',
  'description',
  'avatarUrl',
  'allowedReactions',
  'commentsEnabled',
  'commentRate',
  'autoHideReports',
] as const satisfies readonly (keyof ChannelSettings)[];

/** The settings `source` names (undefined ones left out), as a partial change. */
function settingsIn(source: Partial<ChannelSettings>, except?: ChannelSettings): Partial<ChannelSettings> {
  const keys = settingKeys.filter(
    (key) =>
      source[key] !== undefined && (except === undefined || !isDeepStrictEqual(source[key], except[key])),
  );
  return Object.fromEntries(keys.map((key) => [key, source[key]]));
}

function evolve(state: ChannelState, event: ChannelEvent): ChannelState {
  if (event.type === 'channelCreated') {
    const { title, description, avatarUrl, allowedReactions, commentsEnabled, commentRate, autoHideReports } =
      event.data;
    return { title, description, avatarUrl, allowedReactions, commentsEnabled, commentRate, autoHideReports };
  }
  return state === null ? null : { ...state, ...settingsIn(event.data) };
}

function decide(command: ChannelCommand, state: ChannelState): readonly ChannelEvent[] {
  if (command.type === 'create') {
    if (state !== null) throw invalidTransition('This channel exists already.');
    return [{ type: 'channelCreated', data: { ...command.settings, at: command.at } }];
  }
  if (state === null) throw notFound('No such channel.');
  const changed = settingsIn(command.change, state);
  return Object.keys(changed).length === 0
    ? []
    : [{ type: 'channelEdited', data: { ...changed, at: command.at } }];
}

/** A channel's settings: created once, then edited (only what changed is recorded). */
export const channelDecider: Decider<ChannelCommand, ChannelState, ChannelEvent> = {
  initialState: null,
  evolve,
  decide,
};

export function handleChannelCommand(
  store: EventStore,
  channelId: string,
  command: ChannelCommand,
  context: CommandContext,
): Promise<CommandResult<ChannelEvent>> {
  return handleCommand({
    store,
    stream: channelStream(channelId),
    decider: channelDecider,
    codec: channelCodec,
    command,
    context,
  });
}
