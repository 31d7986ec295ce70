import { type CsatEvent, type CsatTargetType, csatCodec, csatStream } from '../events/csat.ts';
import type { Position } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { invalidTransition } from '../lib/domain-error.ts';
import { type CommandContext, type Decider, fold, handleCommand } from './handler.ts';

/** What a target's stream holds: its one rating, once given. */
export interface CsatState {
  readonly rated: { readonly ratingId: string; readonly rating: number } | null;
}

export interface RateCommand {
  /** A new id, used only if this command records the rating. */
  readonly ratingId: string;
  readonly userId: string;
  readonly targetType: CsatTargetType;
  readonly targetId: string;
  readonly rating: number;
  readonly comment: string | null;
  readonly at: string;
  /** From the provider read cache: the conversation is closed, or the ticket resolved (decision 029). */
  readonly targetEnded: boolean;
}

/**
 * One rating per conversation or ticket, given once its request has ended. Asking again with the same
 * rating changes nothing (a client's retry); another rating is refused, since the first one stands.
 */
export const csatDecider: Decider<RateCommand, CsatState, CsatEvent> = {
  initialState: { rated: null },
  evolve: (_state, event) => ({ rated: { ratingId: event.data.ratingId, rating: event.data.rating } }),
  decide(command, state) {
    if (state.rated !== null) {
      if (state.rated.rating === command.rating) return [];
      throw invalidTransition(`This ${command.targetType} was rated already.`, 'already_rated');
    }
    if (!command.targetEnded) {
      throw invalidTransition(
        command.targetType === 'conversation'
          ? 'A conversation can be rated once it is closed.'
          : 'A ticket can be rated once it is resolved.',
      );
    }
    const { ratingId, userId, targetType, targetId, rating, comment, at } = command;
    return [{ type: 'csatRated', data: { ratingId, userId, targetType, targetId, rating, comment, at } }];
  },
};

export interface RateResult {
  readonly id: string;
  readonly rating: number;
  /** False when the same rating stood already: nothing was appended. */
  readonly created: boolean;
  readonly position: Position | null;
}

/** Rates a conversation or ticket the route has found to be the caller's own. */
export async function rate(
  store: EventStore,
  command: RateCommand,
  context: CommandContext,
): Promise<RateResult> {
  const stream = csatStream({ type: command.targetType, id: command.targetId });
  const result = await handleCommand({
    store,
    stream,
    decider: csatDecider,
    codec: csatCodec,
    command,
    context,
  });
  const recorded = result.events[0];
  if (recorded !== undefined) {
    const { ratingId: id, rating } = recorded.data;
    return { id, rating, created: true, position: result.position };
  }
  // A repeat of the rating that stands: its id is in the stream, read again (repeats are rare).
  const { rated } = fold(
    csatDecider,
    (await store.readStream(stream)).map((r) => csatCodec.parse(r)),
  );
  if (rated === null) throw new Error('csat: a no-op rating found no rating');
  return { id: rated.ratingId, rating: rated.rating, created: false, position: null };
}
