import type { DomainEvent, EventCodec } from '../events/codec.ts';
import type { Actor, EventMetadata, EventToAppend, Position } from '../events/envelope.ts';
import { eventId } from '../events/ids.ts';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  WrongExpectedRevisionError,
} from '../events/store/port.ts';

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
}

/** The stream kept changing under the command: it gave up after the bounded number of attempts. */
export class ConcurrencyExhaustedError extends Error {
  constructor(stream: string, attempts: number) {
    super(`stream ${stream} changed under ${attempts} attempts in a row`);
    this.name = 'ConcurrencyExhaustedError';
  }
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

/** A command's events as the store takes them: ids derived from the command id, so a retry appends nothing new. */
function toAppend<Event extends DomainEvent>(
  stream: string,
  events: readonly Event[],
  context: CommandContext,
  occurredAt: string,
  codec: Pick<EventCodec<Event>, 'schemaVersion'>,
): EventToAppend[] {
  return events.map((event, index) => ({
    id: eventId(context.commandId, stream, index),
    type: event.type,
    data: event.data,
    metadata: eventMetadata(context, occurredAt, codec.schemaVersion(event.type)),
  }));
}

export interface AppendOptions<Event extends DomainEvent> {
  readonly context: CommandContext;
  readonly codec: Pick<EventCodec<Event>, 'schemaVersion'>;
  /** `any` for events no rule decides on; `no_stream` for the first events of a stream minted for them. */
  readonly expected: Extract<ExpectedRevision, 'any' | 'no_stream'>;
  readonly occurredAt: string;
  /** See `AppendTiming`: for high-volume events whose caller can wait a little. */
  readonly lingerMs?: number;
}

/**
 * Appends events without reading their stream first: events that need no decision (a reader's view, a
 * refused comment's record), or the first events of a new stream that a decider has already decided on
 * its initial state (a new comment).
 */
export function appendEvents<Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  events: readonly Event[],
  options: AppendOptions<Event>,
): Promise<AppendResult> {
  const { context, codec, expected, occurredAt, lingerMs } = options;
  const timing = lingerMs === undefined ? undefined : { lingerMs };
  return store.append(stream, toAppend(stream, events, context, occurredAt, codec), expected, timing);
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
    const recorded = await store.readStream(stream);
    const state = fold(
      decider,
      recorded.map((r) => codec.parse(r)),
    );
    const last = recorded.at(-1);
    const expected: ExpectedRevision = last ? last.streamRevision : 'no_stream';
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, nextRevision: last?.streamRevision ?? null, position: null };
    const appending = toAppend(stream, events, context, now().toISOString(), codec);
    try {
      const result = await store.append(stream, appending, expected);
      return { events, nextRevision: result.nextRevision, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= maxAttempts) throw new ConcurrencyExhaustedError(stream, attempt);
    }
  }
}
