import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox, sandboxCalls } from '../support/chat.ts';

// Short waits, so the breaker's half-open probe comes within the test.
const service = useRunningApp({
  support: { client: { breakerHalfOpenAfterMs: 100, maxRetries: 0 } },
});
const api = clientApi(() => service.running.url);
const sandbox = () => requireSandbox(service.running.support.sandbox);
const sent = z.object({ conversationId: z.string() });

describe('when Intercom is down or rate-limited', () => {
  it('answers 503 for a read with no copy to fall back on', async () => {
    const { conversationId } = sent.parse((await api.post('cold', '/conversations', { text: 'hi' })).json);
    sandbox().operator.failFor(60_000, { status: 503 });
    try {
      const cold = await api.get('cold', `/conversations/${conversationId}`);
      expect(cold.status).toBe(503);
      expect(cold.json).toMatchObject({ code: 'provider_unavailable' });
      expect(cold.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      sandbox().operator.clearFaults();
    }
  });

  it('keeps a missing conversation as an answer: polling it does not reach Intercom each time', async () => {
    await api.post('ghost', '/conversations', { text: 'hi' });
    const before = sandboxCalls(sandbox(), 'GET', '/conversations/123456789');
    for (let i = 0; i < 5; i += 1) {
      expect((await api.get('ghost', '/conversations/123456789')).status).toBe(404);
    }
    expect(sandboxCalls(sandbox(), 'GET', '/conversations/123456789') - before).toBe(1);
  });
  // 503 first: after a 429 the client holds every call until Intercom's window resets (up to 10 s).
  for (const status of [503, 429] as const) {
    it(`serves the last copy, marked stale, and refuses writes with 503 and Retry-After (Intercom ${status})`, async () => {
      const user = `user-${status}`;
      const { conversationId } = sent.parse((await api.post(user, '/conversations', { text: 'hello' })).json);
      const warm = await api.get(user, `/conversations/${conversationId}`);
      expect(warm.status).toBe(200);
      expect((await api.get(user, '/conversations')).status).toBe(200);
      expect(warm.headers.get('x-provider-stale')).toBeNull();
      // A webhook (or TTL) makes the copy old; Intercom then fails every call for a while.
      await service.running.support.cache.invalidate({ contactIds: [], conversationId });
      sandbox().operator.failFor(60_000, { status });
      try {
        const stale = await api.get(user, `/conversations/${conversationId}`);
        expect(stale.status).toBe(200);
        expect(stale.headers.get('x-provider-stale')).toBe('true');
        expect(stale.headers.get('age')).toMatch(/^\d+$/);
        expect(stale.json).toEqual(warm.json);
        const list = await api.get(user, '/conversations');
        expect(list.status).toBe(200);
        expect(list.headers.get('x-provider-stale')).toBe('true');

        const write = await api.post(user, '/conversations', { conversationId, text: 'are you there?' });
        expect(write.status).toBe(503);
        expect(write.json).toMatchObject({ code: 'provider_unavailable' });
        expect(Number(write.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(JSON.stringify(sandbox().state.conversations.get(conversationId))).not.toContain(
          'are you there',
        );
      } finally {
        sandbox().operator.clearFaults();
      }
      if (status === 429) return; // Intercom's window has yet to reset: the client waits for it.
      // Back up: the next read is fresh again (after the breaker's short half-open wait).
      await new Promise((resolve) => setTimeout(resolve, 150));
      const fresh = await api.get(user, `/conversations/${conversationId}`);
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('x-provider-stale')).toBeNull();
    });
  }
});
