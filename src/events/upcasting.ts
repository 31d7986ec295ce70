import type { EventMetadata, Json } from './envelope.ts';

/** Turns the stored data of one event type from `fromVersion` to `fromVersion + 1`. */
export interface Upcaster {
  readonly type: string;
  readonly fromVersion: number;
  up(data: Json, metadata: EventMetadata): Json;
}

export interface StoredShape {
  readonly type: string;
  readonly data: Json;
  readonly metadata: EventMetadata;
}

export type Upcast = <T extends StoredShape>(event: T) => T;

/**
 * Stored events are never rewritten: an old version is brought to the current one each time it is read,
 * one step at a time, so every step is a small, separately tested function.
 */
export function createUpcast(upcasters: readonly Upcaster[]): Upcast {
  const steps = new Map<string, Upcaster>();
  for (const u of upcasters) {
    const key = `${u.type}@${u.fromVersion}`;
    if (steps.has(key)) throw new Error(`two upcasters for ${key}`);
    steps.set(key, u);
  }
  return <T extends StoredShape>(event: T): T => {
    let { data, metadata } = event;
    for (let step = steps.get(`${event.type}@${metadata.schemaVersion}`); step;) {
      data = step.up(data, metadata);
      metadata = { ...metadata, schemaVersion: step.fromVersion + 1 };
      step = steps.get(`${event.type}@${metadata.schemaVersion}`);
    }
    return data === event.data ? event : { ...event, data, metadata };
  };
}

export const noUpcast: Upcast = (event) => event;
