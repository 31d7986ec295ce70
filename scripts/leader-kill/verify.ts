/**
 * What the leader-kill check concludes from what it wrote and what it read back: every acknowledged event
 * stored exactly once, in the order it was acknowledged, at the revision its append answered, and once in
 * `$all`. An append that failed may or may not have landed; its events may be there, but only once.
 */

/** An append the store answered: its events' ids in order and the revision it said the last one got. */
export interface AcknowledgedAppend {
  readonly stream: string;
  readonly ids: readonly string[];
  readonly nextRevision: bigint;
}

/** An append that threw after the adapter's own retries: its outcome is unknown. */
export interface FailedAppend {
  readonly stream: string;
  readonly ids: readonly string[];
}

/** One event of a stream as read back, in stream order. */
export interface StoredEvent {
  readonly id: string;
  readonly revision: bigint;
}

export type Problem =
  'lost' | 'doubled' | 'out of order' | 'wrong revision' | 'not ours' | 'not once in $all';

export interface Finding {
  readonly stream: string;
  readonly problem: Problem;
  readonly eventId: string;
  readonly detail?: string;
}

export interface ReadBack {
  /** Each stream of the run, as read back (forwards, whole). */
  readonly streams: ReadonlyMap<string, readonly StoredEvent[]>;
  /** How often each event id of the run appeared when reading `$all` for the run's category. */
  readonly inAll: ReadonlyMap<string, number>;
}

function countIds(events: readonly StoredEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
  return counts;
}

function groupByStream<T extends { readonly stream: string }>(items: readonly T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const item of items) grouped.set(item.stream, [...(grouped.get(item.stream) ?? []), item]);
  return grouped;
}

function verifyStream(
  stream: string,
  acknowledged: readonly AcknowledgedAppend[],
  failed: readonly FailedAppend[],
  stored: readonly StoredEvent[],
  inAll: ReadonlyMap<string, number>,
): Finding[] {
  const findings: Finding[] = [];
  const found = (problem: Problem, eventId: string, detail?: string) => {
    findings.push({ stream, problem, eventId, ...(detail === undefined ? {} : { detail }) });
  };
  const counts = countIds(stored);
  const ours = new Set([...acknowledged, ...failed].flatMap((append) => append.ids));
  for (const [id, count] of counts) {
    if (count > 1) found('doubled', id, `stored ${count.toString()} times`);
    if (!ours.has(id)) found('not ours', id);
    const seen = inAll.get(id) ?? 0;
    if (seen !== 1) found('not once in $all', id, `seen ${seen.toString()} times in $all`);
  }
  const indexOf = new Map(stored.map((event, index) => [event.id, index]));
  const byRevision = new Map(stored.map((event) => [event.revision, event.id]));
  let previous = -1;
  for (const append of acknowledged) {
    for (const id of append.ids) {
      const index = indexOf.get(id);
      if (index === undefined) {
        found('lost', id, 'acknowledged, not in the stream');
        continue;
      }
      if (index <= previous) found('out of order', id, 'stored before an event acknowledged earlier');
      previous = Math.max(previous, index);
    }
    const last = append.ids.at(-1);
    const atRevision = byRevision.get(append.nextRevision);
    if (last !== undefined && counts.has(last) && atRevision !== last) {
      found('wrong revision', last, `answered revision ${append.nextRevision.toString()}`);
    }
  }
  return findings;
}

/** Every finding of the run; none means the check passed. */
export function verifyRun(
  acknowledged: readonly AcknowledgedAppend[],
  failed: readonly FailedAppend[],
  read: ReadBack,
): Finding[] {
  const acknowledgedBy = groupByStream(acknowledged);
  const failedBy = groupByStream(failed);
  const streams = new Set([...acknowledgedBy.keys(), ...failedBy.keys(), ...read.streams.keys()]);
  return [...streams].flatMap((stream) =>
    verifyStream(
      stream,
      acknowledgedBy.get(stream) ?? [],
      failedBy.get(stream) ?? [],
      read.streams.get(stream) ?? [],
      read.inAll,
    ),
  );
}
