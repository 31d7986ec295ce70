import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadCache } from '../../src/chat/read-cache.ts';
import { createSupportCache } from '../../src/chat/support-cache.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { sandboxCalls } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';
import { connectTestRedis } from '../support/redis.ts';

/** A load we can hold open and count, to see exactly when the cache calls it. */
function controlledLoad() {
  let calls = 0;
  let version = 0;
  let gate: { release: () => void; wait: Promise<void> } | null = null;
  return {
    get calls() {
      return calls;
    },
    bump() {
      version += 1;
    },
    hold() {
      let release = () => {};
      const wait = new Promise<void>((resolve) => (release = resolve));
      gate = { release, wait };
      return () => {
        gate = null;
        release();
      };
    },
    fail: false,
    async load(key: string) {
      calls += 1;
      const seen = version;
      if (gate) await gate.wait;
      if (this.fail) throw new Error('provider down');
      return { key, version: seen };
    },
  };
}

describe('read cache', () => {
  it('makes one load for concurrent misses of a key', async () => {
    const source = controlledLoad();
    const cache = createReadCache({ ttlMs: 60_000, max: 100, load: (k) => source.load(k) });
    const release = source.hold();
    const reads = Array.from({ length: 100 }, () => cache.read('a'));
    release();
    const values = await Promise.all(reads);
    expect(source.calls).toBe(1);
    expect(new Set(values.map((v) => v.value)).size).toBe(1);
    await cache.read('a');
    expect(source.calls).toBe(1);
  });

  it('loads again after an invalidation, once for any number of readers', async () => {
    const source = controlledLoad();
    const cache = createReadCache({ ttlMs: 60_000, max: 100, load: (k) => source.load(k) });
    await cache.read('a');
    source.bump();
    cache.invalidate('a');
    const values = await Promise.all(Array.from({ length: 20 }, () => cache.read('a')));
    expect(values.every((v) => v.value.version === 1 && !v.stale)).toBe(true);
    expect(source.calls).toBe(2);
  });

  it('does not trust a load that was running when the invalidation came', async () => {
    const source = controlledLoad();
    const cache = createReadCache({ ttlMs: 60_000, max: 100, load: (k) => source.load(k) });
    const release = source.hold();
    const early = cache.read('a'); // reads version 0, held
    source.bump();
    cache.invalidate('a');
    release();
    expect((await early).value.version).toBe(1);
    expect(source.calls).toBe(2);
  });

  it('answers the last copy, marked stale, when the provider fails; and fails with no copy', async () => {
    let now = 1_000_000;
    const source = controlledLoad();
    const cache = createReadCache({ ttlMs: 1_000, max: 100, load: (k) => source.load(k), now: () => now });
    await cache.read('a');
    source.fail = true;
    now += 5_000; // past the TTL
    const stale = await cache.read('a');
    expect(stale).toMatchObject({ stale: true, value: { version: 0 }, fetchedAt: 1_000_000 });
    await expect(cache.read('b')).rejects.toThrow('provider down');
    source.fail = false;
    expect((await cache.read('a')).stale).toBe(false);
  });

  it('forgets a copy on delete: an outage then has none to answer, and a load it drops is read afresh', async () => {
    const source = controlledLoad();
    const cache = createReadCache({ ttlMs: 60_000, max: 100, load: (k) => source.load(k) });
    await cache.read('a');
    expect(cache.peek('a')).toEqual({ key: 'a', version: 0 });
    cache.delete('a');
    expect(cache.peek('a')).toBeUndefined();
    source.fail = true;
    await expect(cache.read('a')).rejects.toThrow('provider down');
    source.fail = false;

    const release = source.hold();
    const running = cache.read('a'); // reads version 0, held
    source.bump();
    cache.delete('a');
    release();
    expect((await running).value.version).toBe(1);
    expect(cache.peek('a')).toEqual({ key: 'a', version: 1 });
  });
});

const redis = await connectTestRedis('support cache invalidation through Redis');

describe.skipIf(redis === null)('support cache shared by replicas through Redis', () => {
  let sandbox: IntercomSandbox;
  beforeAll(async () => {
    sandbox = await startIntercomSandbox({ accessToken: 'token', clientSecret: 'secret' });
  });
  afterAll(async () => {
    await sandbox.close();
    redis?.disconnect();
  });

  it('an invalidation on one replica makes the other read Intercom again, once', async () => {
    const logger = createLogger('silent');
    const client = () => createIntercomClient({ baseUrl: sandbox.url, accessToken: 'token', logger });
    const intercom = client();
    const contact = await intercom.createContact(`redis-${Date.now()}`);
    const { conversation_id: id } = await intercom.createConversation({ contactId: contact.id, body: 'hi' });
    const [a, b] = await Promise.all(
      [0, 1].map(() =>
        createSupportCache({ intercom: client(), logger, redis: redis ?? undefined, ttlMs: 60_000 }),
      ),
    );
    if (!a || !b) throw new Error('no caches');
    try {
      await a.conversation(id);
      await b.conversation(id);
      const before = sandboxCalls(sandbox, 'GET', `/conversations/${id}`);
      await sandbox.operator.reply(id, { body: 'from the team' });
      await a.invalidate({ contactIds: [contact.id], conversationId: id });
      const seen = await eventually(
        () => b.conversation(id),
        (read) => read.value.found && read.value.view.messages.length === 2,
      );
      expect(seen.stale).toBe(false);
      expect(sandboxCalls(sandbox, 'GET', `/conversations/${id}`) - before).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a forget on one replica drops the copies of the other, the conversations its lists name included', async () => {
    const logger = createLogger('silent');
    const client = () =>
      createIntercomClient({ baseUrl: sandbox.url, accessToken: 'token', logger, retryInitialDelayMs: 1 });
    const contact = await client().createContact(`forget-${Date.now()}`);
    const { conversation_id: id } = await client().createConversation({ contactId: contact.id, body: 'hi' });
    const [a, b] = await Promise.all(
      [0, 1].map(() =>
        createSupportCache({ intercom: client(), logger, redis: redis ?? undefined, ttlMs: 60_000 }),
      ),
    );
    if (!a || !b) throw new Error('no caches');
    try {
      expect((await b.conversations(contact.id)).value.items.map((c) => c.id)).toEqual([id]);
      expect((await b.conversation(id)).value.found).toBe(true);
      sandbox.operator.failFor(60_000, { status: 503 });
      // Only the contact is named: b finds the conversation in its own copy of the list.
      await a.forget({ contactIds: [contact.id], conversationIds: [], ticketIds: [] });
      const failed = (read: Promise<unknown>) =>
        read.then(
          () => false,
          () => true,
        );
      await eventually(
        () => failed(b.conversation(id)),
        (dropped) => dropped,
      );
      expect(await failed(b.conversations(contact.id))).toBe(true);
    } finally {
      sandbox.operator.clearFaults();
      await Promise.all([a.close(), b.close()]);
    }
  });
});
