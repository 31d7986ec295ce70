import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import type { PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import type { EventStore } from '../../src/events/store/port.ts';
import { median } from '../load.ts';
import {
  APPEND_CATEGORY,
  deviceToken,
  registered,
  toAppend,
  type WriterStreams,
  writerStreams,
} from './events.ts';

/** Appends one event to the writer's current stream, expecting the revision its count implies. */
export type AppendOne = (streams: WriterStreams) => Promise<void>;

const nextEvent = (streams: WriterStreams) => {
  const event = registered(
    deviceToken(streams.userId, streams.count),
    streams.count % 2 === 0 ? 'mobile' : 'tma',
  );
  const [toStore] = toAppend(streams.userId, streams.stream, [event]);
  if (!toStore) throw new Error('toAppend answered nothing');
  return { event, toStore };
};

/** Ours: 'no_stream' for a new stream, else the revision of its last event (0-based). */
export const appendOurs =
  (store: EventStore): AppendOne =>
  async (streams) => {
    const expected = streams.count === 0 ? 'no_stream' : BigInt(streams.count - 1);
    await store.append(streams.stream, [nextEvent(streams).toStore], expected);
  };

/**
 * Emmett's: a stream's version is its event count, 0 for none. The explicit 0n takes its cheapest
 * path for a new stream (an INSERT that fails on a duplicate); STREAM_DOES_NOT_EXIST would first read.
 */
export const appendEmmett =
  (store: PostgresEventStore): AppendOne =>
  async (streams) => {
    const { event, toStore } = nextEvent(streams);
    const { type, data } = event;
    await store.appendToStream(streams.stream, [{ type, data, metadata: toStore.metadata }], {
      expectedStreamVersion: BigInt(streams.count),
    });
  };

export interface AppendOptions {
  readonly writers: number;
  readonly streamLength: number;
  readonly warmupS: number;
  readonly durationS: number;
  readonly rounds: number;
  readonly signal: AbortSignal;
}

export interface AppendSeries {
  /** Appends per second of the median round. */
  readonly appendsPerSecond: number;
  readonly rounds: readonly number[];
  readonly appends: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** This process's CPU time (user + system) per measured append: the client side's cost. */
  readonly nodeCpuUsPerAppend: number;
}

interface Contender {
  readonly appendOne: AppendOne;
  /** One per writer, kept across rounds so that streams keep growing to their length. */
  readonly streams: readonly WriterStreams[];
  readonly rounds: number[];
  readonly latenciesUs: RecordableHistogram;
  appends: number;
  cpuUs: number;
}

/** Every writer appends, one event at a time, until `durationS` is up; resolves appends and seconds. */
async function runWriters(
  contender: Contender,
  durationS: number,
  signal: AbortSignal,
  latenciesUs?: RecordableHistogram,
): Promise<{ appends: number; seconds: number; cpuUs: number }> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const deadline = start + durationS * 1000;
  let appends = 0;
  await Promise.all(
    contender.streams.map(async (streams) => {
      while (performance.now() < deadline) {
        signal.throwIfAborted();
        const began = performance.now();
        await contender.appendOne(streams);
        latenciesUs?.record(Math.max(1, Math.round((performance.now() - began) * 1000)));
        streams.advance();
        appends++;
      }
    }),
  );
  const { user, system } = process.cpuUsage(cpu);
  return { appends, seconds: (performance.now() - start) / 1000, cpuUs: user + system };
}

/**
 * The same workload against each store: warm-up, then alternating rounds, the order flipped every
 * round (A B, B A, A B, …) so neither always runs right after the other. Appends/s is the median round.
 */
export async function measureAppends<K extends string>(
  stores: Readonly<Record<K, AppendOne>>,
  options: AppendOptions,
): Promise<Record<K, AppendSeries>> {
  const names = Object.keys(stores) as K[];
  const contenders = new Map<K, Contender>(
    names.map((name) => [
      name,
      {
        appendOne: stores[name],
        streams: Array.from({ length: options.writers }, (_, w) =>
          writerStreams(APPEND_CATEGORY, `${name}w${w}`, options.streamLength),
        ),
        rounds: [],
        latenciesUs: createHistogram(),
        appends: 0,
        cpuUs: 0,
      },
    ]),
  );
  const contender = (name: K): Contender => {
    const c = contenders.get(name);
    if (!c) throw new Error(`no contender ${name}`);
    return c;
  };
  for (const name of names) await runWriters(contender(name), options.warmupS, options.signal);
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const c = contender(name);
      const run = await runWriters(c, options.durationS, options.signal, c.latenciesUs);
      c.rounds.push(run.appends / run.seconds);
      c.appends += run.appends;
      c.cpuUs += run.cpuUs;
    }
  }
  const out = {} as Record<K, AppendSeries>;
  for (const name of names) {
    const c = contender(name);
    out[name] = {
      appendsPerSecond: median(c.rounds),
      rounds: c.rounds,
      appends: c.appends,
      p50Ms: c.latenciesUs.percentile(50) / 1000,
      p99Ms: c.latenciesUs.percentile(99) / 1000,
      nodeCpuUsPerAppend: c.cpuUs / Math.max(1, c.appends),
    };
  }
  return out;
}
