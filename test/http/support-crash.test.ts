import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src/http/logger.ts';
import { startSupportInbox } from '../../src/jobs/support-inbox.ts';
import { useRunningApp } from '../support/app.ts';
import { clientApi, requireSandbox } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';

// The service's worker is "dead": webhooks are verified, stored and answered 200, and nothing processes them.
const service = useRunningApp({ support: { runInbox: false } });
const api = clientApi(() => service.running.url);

const pending = () =>
  service.db.pool.anyFirst(sql.type(z.object({ topic: z.string() }))`
    SELECT topic FROM processed_events WHERE processed_at IS NULL ORDER BY received_at`);

/** The inbox depth as /metrics reports it. */
const pendingMetric = async () => {
  const text = await (await fetch(`${service.running.url}/metrics`)).text();
  return Number(/^support_webhooks_pending (\d+)$/m.exec(text)?.[1]);
};

describe('a crash after the webhook was answered and before it was processed', () => {
  it('loses nothing: a worker started later processes it, and the poll then shows the reply', async () => {
    const sandbox = requireSandbox(service.running.support.sandbox);
    const { conversationId } = z
      .object({ conversationId: z.string() })
      .parse((await api.post('pia', '/conversations', { text: 'anyone?' })).json);
    const before = await api.get('pia', `/conversations/${conversationId}`);
    // The user's own message makes Intercom send `conversation.user.created`, on its own time: it is in
    // before the team answers, as it would be in real life.
    await sandbox.operator.webhooksIdle();

    await sandbox.operator.reply(conversationId, { body: 'Here I am' });
    await sandbox.operator.close(conversationId);
    expect(sandbox.operator.deliveries.slice(-2).map((d) => d.status)).toEqual([200, 200]);
    // The user's own message made Intercom send `conversation.user.created` first.
    expect(await pending()).toEqual([
      'conversation.user.created',
      'conversation.admin.replied',
      'conversation.admin.closed',
    ]);
    expect(await pendingMetric()).toBe(3);
    // Not processed: the cache was not told, so the poll still answers the copy from before.
    expect((await api.get('pia', `/conversations/${conversationId}`)).json).toEqual(before.json);

    // "Restart": a new worker over the same database, as a restarted replica would run.
    const { support } = service.running;
    const worker = startSupportInbox({
      pool: service.db.pool,
      logger: createLogger('silent'),
      invalidator: support.cache,
      dispatcher: support.dispatcher,
    });
    try {
      await eventually(pending, (rows) => rows.length === 0);
      expect(await pendingMetric()).toBe(0);
      const after = await api.get('pia', `/conversations/${conversationId}`);
      expect(after.json).toMatchObject({ state: 'closed', messages: [{}, { body: '<p>Here I am</p>' }] });
      const durations = await service.db.pool.anyFirst(sql.type(z.object({ conversation_id: z.string() }))`
        SELECT conversation_id FROM conversation_durations WHERE conversation_id = ${conversationId}`);
      expect(durations).toEqual([conversationId]);
    } finally {
      await worker.stop();
    }
  });
});
