import type { Json, RecordedEvent } from './envelope.ts';

/** A domain event before it is stored: its type and its data. */
export interface DomainEvent {
  readonly type: string;
  readonly data: Json;
}

/** How a stream family's events are checked when read, and which schema version of each is written. */
export interface EventCodec<Event extends DomainEvent> {
  parse(recorded: RecordedEvent): Event;
  schemaVersion(type: Event['type']): number;
}
