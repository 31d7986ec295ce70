/**
 * The KurrentDB double's event log: streams and the global `$all` order, in memory. It answers appends
 * as the protocol describes a KurrentDB node doing (expected revisions, event-id idempotency) and knows
 * nothing of gRPC. It is not KurrentDB's storage: nothing here is durable or replicated.
 */

export interface StoredEvent {
  /** Lower-case UUID. */
  readonly id: string;
  readonly stream: string;
  readonly revision: bigint;
  /** Commit and prepare position alike, as a single-event transaction of a real node has them. */
  readonly position: bigint;
  readonly type: string;
  readonly contentType: string;
  /** .NET ticks (100 ns) since the Unix epoch, as the `created` metadata of a real node. */
  readonly created: bigint;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

export type ProposedEvent = Pick<StoredEvent, 'id' | 'type' | 'contentType' | 'data' | 'customMetadata'>;

export type Expected =
  | { readonly kind: 'any' | 'no_stream' | 'stream_exists' }
  | { readonly kind: 'revision'; readonly revision: bigint };

export type AppendOutcome =
  | { readonly ok: true; readonly revision: bigint | null; readonly position: bigint | null }
  | { readonly ok: false; readonly current: bigint | null };

export type From = 'start' | 'end' | bigint;

export interface LogRead {
  readonly forwards: boolean;
  readonly from: From;
  readonly maxCount: bigint;
}

const TICKS_PER_MS = 10_000n;
/** Where the first event lands: a real log starts with the node's own records. */
const FIRST_POSITION = 1_024n;
/** Bytes a record takes besides its data and metadata; only makes positions look like offsets. */
const RECORD_OVERHEAD = 96n;

export function createEventLog() {
  const all: StoredEvent[] = [];
  const streams = new Map<string, StoredEvent[]>();
  const listeners = new Set<() => void>();
  let next = FIRST_POSITION;

  const currentRevision = (stream: string): bigint | null => streams.get(stream)?.at(-1)?.revision ?? null;

  /** The events a batch would repeat when retried: its ids, in order, starting at `index` of the stream. */
  function repeated(stream: readonly StoredEvent[], index: number, batch: readonly ProposedEvent[]) {
    const run = stream.slice(index, index + batch.length);
    const same = run.length === batch.length && run.every((e, i) => e.id === batch[i]?.id);
    const overlaps = run.some((e) => batch.some((p) => p.id === e.id));
    return same ? 'all' : overlaps ? 'some' : 'none';
  }

  /** A real node's idempotency check: the same ids at the place the expected revision points to. */
  function idempotent(stream: string, expected: Expected, batch: readonly ProposedEvent[]) {
    const events = streams.get(stream) ?? [];
    const first = batch[0];
    if (!first) return 'none';
    if (expected.kind === 'revision' || expected.kind === 'no_stream') {
      const start = expected.kind === 'revision' ? Number(expected.revision) + 1 : 0;
      if (start >= events.length) return 'none';
      return repeated(events, start, batch);
    }
    const start = events.findIndex((e) => e.id === first.id);
    return start === -1 ? 'none' : repeated(events, start, batch);
  }

  function accepts(expected: Expected, current: bigint | null): boolean {
    switch (expected.kind) {
      case 'any':
        return true;
      case 'no_stream':
        return current === null;
      case 'stream_exists':
        return current !== null;
      case 'revision':
        return current === expected.revision;
    }
  }

  function write(stream: string, batch: readonly ProposedEvent[]): StoredEvent {
    const events = streams.get(stream) ?? [];
    streams.set(stream, events);
    const created = BigInt(Date.now()) * TICKS_PER_MS;
    for (const proposed of batch) {
      const revision = BigInt(events.length);
      const stored = { ...proposed, stream, revision, position: next, created };
      next += RECORD_OVERHEAD + BigInt(proposed.data.length + proposed.customMetadata.length);
      events.push(stored);
      all.push(stored);
    }
    for (const listener of listeners) listener();
    const last = events.at(-1);
    if (!last) throw new Error('unreachable: a batch of at least one event was written');
    return last;
  }

  function append(stream: string, expected: Expected, batch: readonly ProposedEvent[]): AppendOutcome {
    const current = currentRevision(stream);
    const again = idempotent(stream, expected, batch);
    if (again === 'some') return { ok: false, current };
    if (again === 'all') {
      const events = streams.get(stream) ?? [];
      const index = events.findIndex((e) => e.id === batch.at(-1)?.id);
      const last = events[index];
      if (last) return { ok: true, revision: last.revision, position: last.position };
    }
    if (!accepts(expected, current)) return { ok: false, current };
    if (batch.length === 0) return { ok: true, revision: current, position: null };
    const last = write(stream, batch);
    return { ok: true, revision: last.revision, position: last.position };
  }

  function readStream(stream: string, { forwards, from, maxCount }: LogRead): StoredEvent[] | null {
    const events = streams.get(stream);
    if (!events) return null;
    const limit = Number(maxCount > BigInt(events.length) ? BigInt(events.length) : maxCount);
    if (forwards) {
      const start = from === 'start' ? 0 : from === 'end' ? events.length : Number(from);
      return events.slice(start, start + limit);
    }
    const end = from === 'end' ? events.length - 1 : from === 'start' ? 0 : Number(from);
    return events
      .slice(0, Math.min(end, events.length - 1) + 1)
      .reverse()
      .slice(0, limit);
  }

  /** Index in `$all` of the first event at or after `position` (forwards), or after it (strictly). */
  function indexOf(position: bigint, strictly: boolean): number {
    let low = 0;
    let high = all.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const at = all[middle]?.position ?? 0n;
      if (strictly ? at <= position : at < position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  function readAll({ forwards, from, maxCount }: LogRead, keep: (e: StoredEvent) => boolean) {
    const found: StoredEvent[] = [];
    if (forwards) {
      const start = from === 'start' ? 0 : from === 'end' ? all.length : indexOf(from, false);
      for (let i = start; i < all.length && BigInt(found.length) < maxCount; i++) {
        const event = all[i];
        if (event && keep(event)) found.push(event);
      }
      return found;
    }
    const start = from === 'end' ? all.length - 1 : from === 'start' ? -1 : indexOf(from, false) - 1;
    for (let i = start; i >= 0 && BigInt(found.length) < maxCount; i--) {
      const event = all[i];
      if (event && keep(event)) found.push(event);
    }
    return found;
  }

  return {
    append,
    readStream,
    readAll,
    /** The index in `$all` a subscription from `position` (exclusive) starts at. */
    indexAfter: (position: bigint | null): number => (position === null ? 0 : indexOf(position, true)),
    at: (index: number): StoredEvent | undefined => all[index],
    get length(): number {
      return all.length;
    },
    /** Calls `listener` after every write; returns how to stop. */
    onAppend(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
