import type { DomainEvent, EventCodec } from '../events/codec.ts';
import type { Actor, EventMetadata, EventToAppend, Position } from '../events/envelope.ts';
import { eventId } from '../events/ids.ts';
import { type EventStore, type ExpectedRevision, WrongExpectedRevisionError } from '../events/store/port.ts';
import { ConcurrencyExhaustedError } from './errors.ts';

export type { DomainEvent, EventCodec } from '../events/codec.ts';

/** Pure: what a command does to one stream. `decide` throws a DomainError to refuse. */
export interface Decider<Command, State, Event extends DomainEvent> {
  readonly initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): readonly Event[];
}

export interface CommandContext {
  readonly actor: Actor;
  /** Derives the event ids: the Idempotency-Key (with the caller) when given, otherwise random. */
  readonly commandId: string;
  readonly correlationId: string;
  readonly causationId?: string | null;
}

export interface CommandResult<Event extends DomainEvent> {
  /** What was appended (or found appended by an earlier try of the same command); empty for a no-op. */
  readonly events: readonly Event[];
  readonly nextRevision: bigint | null;
  /** Where the last event stands in the global log; null when nothing was appended. */
  readonly position: Position | null;
}

export interface HandleOptions<Command, State, Event extends DomainEvent> {
  readonly store: EventStore;
  readonly stream: string;
  readonly decider: Decider<Command, State, Event>;
  readonly codec: EventCodec<Event>;
  readonly command: Command;
  readonly context: CommandContext;
  readonly now?: () => Date;
  readonly maxAttempts?: number;
  /**
   * The stream's id was minted for this command (a random id), so it cannot exist yet: the first try
   * decides on the initial state and appends with `no_stream` without reading. Should the stream exist
   * after all, the append is refused and the command goes the usual way.
   */
  readonly freshStream?: boolean;
}

/** The metadata every event of a command carries: who, under which ids, when, in which schema version. */
export function eventMetadata(
  context: CommandContext,
  occurredAt: string,
  schemaVersion: number,
): EventMetadata {
  return {
    actor: context.actor,
    correlationId: context.correlationId,
    causationId: context.causationId ?? null,
    occurredAt,
    schemaVersion,
  };
}

export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}

/**
 * Read the stream, fold it, decide, append with the revision read; when another writer got there
 * first, read again and decide again (a bounded number of times).
 */
export async function handleCommand<Command, State, Event extends DomainEvent>(
  options: HandleOptions<Command, State, Event>,
): Promise<CommandResult<Event>> {
  const { store, stream, decider, codec, command, context } = options;
  const maxAttempts = options.maxAttempts ?? 5;
  const now = options.now ?? (() => new Date());
  for (let attempt = 1; ; attempt++) {
    const recorded = attempt === 1 && options.freshStream ? [] : await store.readStream(stream);
    const state = fold(
      decider,
      recorded.map((r) => codec.parse(r)),
    );
    const last = recorded.at(-1);
    const expected: ExpectedRevision = last ? last.streamRevision : 'no_stream';
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, nextRevision: last?.streamRevision ?? null, position: null };
    const occurredAt = now().toISOString();
    const toAppend: EventToAppend[] = events.map((event, index) => ({
      id: eventId(context.commandId, stream, index),
      type: event.type,
      data: event.data,
      metadata: eventMetadata(context, occurredAt, codec.schemaVersion(event.type)),
    }));
    try {
      const result = await store.append(stream, toAppend, expected);
      return { events, nextRevision: result.nextRevision, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= maxAttempts) throw new ConcurrencyExhaustedError(stream, attempt);
    }
  }
}
