import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  comparePositions,
  type EventToAppend,
  type Position,
  type RecordedEvent,
} from '../../../src/events/envelope.ts';
import { type EventStore, WrongExpectedRevisionError } from '../../../src/events/store/port.ts';

export interface ContractSetup {
  readonly store: EventStore;
  cleanup(): Promise<void>;
}

/** A category of its own for each test, so tests sharing one store (a KurrentDB server) never meet. */
export const freshCategory = () => `c${randomBytes(6).toString('hex')}`;

export function testEvent(
  type: string,
  data: Record<string, unknown> = {},
  id = randomUUID(),
): EventToAppend {
  return {
    id,
    type,
    data: data as EventToAppend['data'],
    metadata: {
      actor: { type: 'system', id: 'contract-test' },
      correlationId: id,
      causationId: null,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
  };
}

export async function collect(
  store: EventStore,
  options: { after: Position | null; categories: string[]; until: (all: RecordedEvent[]) => boolean },
  timeoutMs = 10_000,
): Promise<RecordedEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort();
  }, timeoutMs);
  const all: RecordedEvent[] = [];
  try {
    for await (const batch of store.subscribe({ ...options, signal: controller.signal })) {
      all.push(...batch);
      if (options.until(all)) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return all;
}

const types = (events: readonly RecordedEvent[]) => events.map((e) => e.type);

function expectStrictlyIncreasing(events: readonly RecordedEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    const previous = events[i - 1];
    const current = events[i];
    if (previous && current) expect(comparePositions(previous.position, current.position)).toBe(-1);
  }
}

/** The behaviour every event store adapter must show (ARCHITECTURE.md, "Event store"). */
export function describeEventStoreContract(name: string, setup: () => Promise<ContractSetup | null>): void {
  describe(`event store contract: ${name}`, () => {
    let target: ContractSetup | null = null;
    beforeAll(async () => {
      target = await setup();
    });
    afterAll(async () => {
      await target?.cleanup();
    });
    const store = (): EventStore => {
      if (!target) throw new Error('no store');
      return target.store;
    };
    const test = (title: string, body: () => Promise<void>, timeout?: number) => {
      it(
        title,
        async (context) => {
          if (!target) {
            context.skip();
            return;
          }
          await body();
        },
        timeout,
      );
    };

    test('appends to a new stream with no_stream and refuses a second no_stream', async () => {
      const stream = `${freshCategory()}-1`;
      const first = await store().append(stream, [testEvent('a'), testEvent('b')], 'no_stream');
      expect(first.nextRevision).toBe(1n);
      expect(first.written).toBe(true);
      const conflict = await store()
        .append(stream, [testEvent('c')], 'no_stream')
        .catch((e: unknown) => e);
      expect(conflict).toBeInstanceOf(WrongExpectedRevisionError);
      expect((conflict as WrongExpectedRevisionError).actual).toBe(1n);
      expect(types(await store().readStream(stream))).toEqual(['a', 'b']);
    });

    test('appends at the expected revision and refuses a stale one, changing nothing', async () => {
      const stream = `${freshCategory()}-1`;
      await store().append(stream, [testEvent('a')], 'no_stream');
      const second = await store().append(stream, [testEvent('b')], 0n);
      expect(second.nextRevision).toBe(1n);
      const stale = await store()
        .append(stream, [testEvent('x')], 0n)
        .catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(WrongExpectedRevisionError);
      expect((stale as WrongExpectedRevisionError).actual).toBe(1n);
      const missing = await store()
        .append(`${freshCategory()}-none`, [testEvent('x')], 3n)
        .catch((e: unknown) => e);
      expect((missing as WrongExpectedRevisionError).actual).toBe('no_stream');
      expect(types(await store().readStream(stream))).toEqual(['a', 'b']);
    });

    test('appends with any whatever the revision', async () => {
      const stream = `${freshCategory()}-1`;
      expect((await store().append(stream, [testEvent('a')], 'any')).nextRevision).toBe(0n);
      expect((await store().append(stream, [testEvent('b'), testEvent('c')], 'any')).nextRevision).toBe(2n);
    });

    test('a retried append of the same event ids writes nothing and answers the first result', async () => {
      const stream = `${freshCategory()}-1`;
      await store().append(stream, [testEvent('before')], 'no_stream');
      const events = [testEvent('a'), testEvent('b')];
      const first = await store().append(stream, events, 0n);
      const retry = await store().append(stream, events, 0n);
      expect(retry).toEqual({ ...first, written: false });
      expect(types(await store().readStream(stream))).toEqual(['before', 'a', 'b']);
    });

    test('reads a stream forwards and backwards, from a revision, with a maximum', async () => {
      const stream = `${freshCategory()}-1`;
      await store().append(
        stream,
        ['a', 'b', 'c', 'd'].map((t) => testEvent(t, { t })),
        'no_stream',
      );
      const all = await store().readStream(stream);
      expect(types(all)).toEqual(['a', 'b', 'c', 'd']);
      expect(all.map((e) => e.streamRevision)).toEqual([0n, 1n, 2n, 3n]);
      expect(all[2]?.data).toEqual({ t: 'c' });
      expect(all[0]?.metadata.actor).toEqual({ type: 'system', id: 'contract-test' });
      expect(types(await store().readStream(stream, { direction: 'backwards' }))).toEqual([
        'd',
        'c',
        'b',
        'a',
      ]);
      expect(types(await store().readStream(stream, { fromRevision: 2n }))).toEqual(['c', 'd']);
      expect(
        types(await store().readStream(stream, { direction: 'backwards', fromRevision: 2n, maxCount: 2 })),
      ).toEqual(['c', 'b']);
      expect(types(await store().readStream(stream, { maxCount: 1 }))).toEqual(['a']);
      expect(await store().readStream(`${freshCategory()}-absent`)).toEqual([]);
    });

    test('reads the global log in append order across streams, filtered by category', async () => {
      const [one, two, other] = [freshCategory(), freshCategory(), freshCategory()];
      await store().append(`${one}-x`, [testEvent('1')], 'any');
      await store().append(`${other}-x`, [testEvent('ignored')], 'any');
      await store().append(`${two}-y`, [testEvent('2'), testEvent('3')], 'any');
      await store().append(`${one}-z`, [testEvent('4')], 'any');
      const all = await store().readAll({ after: null, categories: [one, two], maxCount: 100 });
      expect(types(all)).toEqual(['1', '2', '3', '4']);
      expectStrictlyIncreasing(all);
      const rest = await store().readAll({
        after: all[1]?.position ?? null,
        categories: [one, two],
        maxCount: 100,
      });
      expect(types(rest)).toEqual(['3', '4']);
      expect(types(await store().readAll({ after: null, categories: [one, two], maxCount: 2 }))).toEqual([
        '1',
        '2',
      ]);
      expect(await store().headPosition([one, two])).toEqual(all[3]?.position);
    });

    test('a subscription catches up, then receives live events', async () => {
      const category = freshCategory();
      await store().append(`${category}-1`, [testEvent('a'), testEvent('b')], 'no_stream');
      const received = collect(store(), {
        after: null,
        categories: [category],
        until: (all) => all.length >= 4,
      });
      await new Promise((r) => setTimeout(r, 300));
      await store().append(`${category}-1`, [testEvent('c')], 1n);
      await store().append(`${category}-2`, [testEvent('d')], 'no_stream');
      const all = await received;
      expect(types(all)).toEqual(['a', 'b', 'c', 'd']);
      expectStrictlyIncreasing(all);
    });

    test('a subscription resumes after a checkpoint', async () => {
      const category = freshCategory();
      await store().append(
        `${category}-1`,
        ['a', 'b', 'c', 'd'].map((t) => testEvent(t)),
        'no_stream',
      );
      const [, second] = await store().readAll({ after: null, categories: [category], maxCount: 10 });
      const rest = await collect(store(), {
        after: second?.position ?? null,
        categories: [category],
        until: (all) => all.length >= 2,
      });
      expect(types(rest)).toEqual(['c', 'd']);
    });

    test('concurrent writers: one subscriber gets every event exactly once, in the store order', async () => {
      const category = freshCategory();
      const writers = 6;
      const perWriter = 40;
      const received = collect(
        store(),
        { after: null, categories: [category], until: (all) => all.length >= writers * perWriter },
        30_000,
      );
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < perWriter; i++) {
            await store().append(`${category}-${w % 3}`, [testEvent('e', { w, i })], 'any');
            if (Math.random() < 0.2) await new Promise((r) => setTimeout(r, Math.random() * 5));
          }
        }),
      );
      const all = await received;
      expect(all).toHaveLength(writers * perWriter);
      expect(new Set(all.map((e) => e.id)).size).toBe(writers * perWriter);
      expectStrictlyIncreasing(all);
      const log = await store().readAll({ after: null, categories: [category], maxCount: 10_000 });
      expect(all.map((e) => e.id)).toEqual(log.map((e) => e.id));
    }, 60_000);
  });
}
