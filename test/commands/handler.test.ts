import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  appendEvents,
  type CommandContext,
  ConcurrencyExhaustedError,
  type Decider,
  type EventCodec,
  handleCommand,
} from '../../src/commands/handler.ts';
import { type EventStore, WrongExpectedRevisionError } from '../../src/events/store/port.ts';
import { invalidTransition } from '../../src/lib/domain-error.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import { createLogger } from '../../src/http/logger.ts';
import { useTestDatabase } from '../support/database.ts';
import { freshCategory, testEvent } from '../events/store/contract.ts';

// A counter with a ceiling: small enough to read, and it refuses, so every path of the handler is used.
const incremented = z.object({ type: z.literal('incremented'), data: z.object({ by: z.number() }) });
type Incremented = z.infer<typeof incremented>;
const codec: EventCodec<Incremented> = {
  parse: (recorded) => incremented.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 3,
};
const counter: Decider<{ by: number }, { total: number }, Incremented> = {
  initialState: { total: 0 },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  decide: (command, state) => {
    if (state.total + command.by > 100)
      throw invalidTransition(`the total would pass 100 (it is ${state.total})`);
    return [{ type: 'incremented', data: { by: command.by } }];
  },
};

const db = useTestDatabase();
let store: EventStore;
beforeAll(() => {
  store = createPostgresEventStore({ connectionString: db.url, logger: createLogger('silent') });
});
afterAll(async () => {
  await store.close();
});

const context = (commandId: string = randomUUID()): CommandContext => ({
  actor: { type: 'admin', id: 'admin-1' },
  commandId,
  correlationId: randomUUID(),
  causationId: 'cause-1',
});

const increment = (stream: string, by: number, options: Partial<Parameters<typeof handleCommand>[0]> = {}) =>
  handleCommand({ store, stream, decider: counter, codec, command: { by }, context: context(), ...options });

describe('command handler', () => {
  it('appends what the decider decided, with the envelope, and answers the revision and position', async () => {
    const stream = `${freshCategory()}-1`;
    const at = new Date('2026-11-01T10:00:00.000Z');
    const ctx = context();
    const result = await handleCommand({
      store,
      stream,
      decider: counter,
      codec,
      command: { by: 5 },
      context: ctx,
      now: () => at,
    });
    expect(result.nextRevision).toBe(0n);
    const [event] = await store.readStream(stream);
    expect(event?.position).toEqual(result.position);
    expect(event?.data).toEqual({ by: 5 });
    expect(event?.metadata).toEqual({
      actor: { type: 'admin', id: 'admin-1' },
      correlationId: ctx.correlationId,
      causationId: 'cause-1',
      occurredAt: at.toISOString(),
      schemaVersion: 3,
    });
  });

  it('decides on the state folded from the stream, and lets a refusal through unchanged', async () => {
    const stream = `${freshCategory()}-1`;
    await increment(stream, 60);
    await expect(increment(stream, 50)).rejects.toMatchObject({
      kind: 'invalid_transition',
      code: 'conflict',
    });
    expect((await store.readStream(stream)).length).toBe(1);
  });

  it('re-reads and re-decides when another writer got there first: concurrent commands all land', async () => {
    const stream = `${freshCategory()}-1`;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => increment(stream, 1, { maxAttempts: 20 })),
    );
    const events = await store.readStream(stream);
    expect(events.map((e) => e.streamRevision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(results.map((r) => r.nextRevision).sort()).toEqual(events.map((e) => e.streamRevision));
  });

  /** The real store, with another writer landing `by` on the stream just before each of our appends. */
  const beatenBy = (by: number, times: number): EventStore => {
    let left = times;
    return {
      ...store,
      append: async (name, events, expected) => {
        if (left-- > 0) await store.append(name, [testEvent('incremented', { by })], 'any');
        return store.append(name, events, expected);
      },
    };
  };

  it('re-decides on the new state after a conflict, so a rule is never broken by a race', async () => {
    const stream = `${freshCategory()}-1`;
    await increment(stream, 50);
    await expect(increment(stream, 20, { store: beatenBy(40, 1) })).rejects.toMatchObject({
      kind: 'invalid_transition',
    });
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ by: 50 }, { by: 40 }]);
  });

  it('lands on the second attempt when the first one lost a race', async () => {
    const stream = `${freshCategory()}-1`;
    await increment(stream, 1);
    const result = await increment(stream, 2, { store: beatenBy(1, 1) });
    expect(result.nextRevision).toBe(2n);
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ by: 1 }, { by: 1 }, { by: 2 }]);
  });

  it('gives up after the bounded number of attempts', async () => {
    const stream = `${freshCategory()}-1`;
    await increment(stream, 1);
    await expect(increment(stream, 1, { store: beatenBy(1, 3), maxAttempts: 3 })).rejects.toBeInstanceOf(
      ConcurrencyExhaustedError,
    );
    // Ours never landed; the three others did.
    expect((await store.readStream(stream)).length).toBe(4);
  });

  it('derives event ids from the command id: the same command again appends nothing new', async () => {
    const stream = `${freshCategory()}-1`;
    const ctx = context('idempotency-key\u0000user-1\u0000key-1');
    const run = () =>
      handleCommand({ store, stream, decider: counter, codec, command: { by: 1 }, context: ctx });
    const first = await run();
    // A counter has no memory of commands, so the decider decides the same event again; its id is the
    // same, and the store recognises it.
    const again = await run();
    expect(again.position).toEqual(first.position);
    expect((await store.readStream(stream)).length).toBe(1);
    // Another command id is another command.
    await increment(stream, 1);
    expect((await store.readStream(stream)).length).toBe(2);
  });
});

describe('appending without reading the stream', () => {
  const decided: Incremented = { type: 'incremented', data: { by: 7 } };

  it("starts a new stream with what was decided on the initial state, with the command's envelope", async () => {
    const stream = `${freshCategory()}-new`;
    const ctx = context();
    const occurredAt = '2026-11-01T10:00:00.000Z';
    const result = await appendEvents(store, stream, [decided], {
      context: ctx,
      codec,
      expected: 'no_stream',
      occurredAt,
    });
    expect(result.nextRevision).toBe(0n);
    const [event] = await store.readStream(stream);
    expect(event?.position).toEqual(result.position);
    expect(event?.data).toEqual({ by: 7 });
    expect(event?.metadata).toEqual({
      actor: { type: 'admin', id: 'admin-1' },
      correlationId: ctx.correlationId,
      causationId: 'cause-1',
      occurredAt,
      schemaVersion: 3,
    });
  });

  it('refuses to start a stream that exists, and appends nothing', async () => {
    const stream = `${freshCategory()}-taken`;
    await increment(stream, 1);
    const occurredAt = new Date().toISOString();
    await expect(
      appendEvents(store, stream, [decided], {
        context: context(),
        codec,
        expected: 'no_stream',
        occurredAt,
      }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream(stream)).length).toBe(1);
  });

  it('appends to any stream when no rule decides, and the same command again appends nothing new', async () => {
    const stream = `${freshCategory()}-any`;
    await increment(stream, 1);
    const ctx = context('idempotency-key\u0000user-1\u0000key-2');
    const append = () =>
      appendEvents(store, stream, [decided], {
        context: ctx,
        codec,
        expected: 'any',
        occurredAt: new Date().toISOString(),
      });
    const first = await append();
    const again = await append();
    expect(again.position).toEqual(first.position);
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ by: 1 }, { by: 7 }]);
  });
});
