import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportCache } from '../../src/chat/support-cache.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createIntercomClient } from '../../src/integrations/intercom/client.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { startSupportReconciler } from '../../src/jobs/support-reconcile.ts';
import { eventually } from '../support/eventually.ts';
import { useTestDatabase } from '../support/database.ts';
import { replicaLocks } from '../support/replica.ts';

const db = useTestDatabase();
const logger = createLogger('silent');
let sandbox: IntercomSandbox;
beforeAll(async () => {
  sandbox = await startIntercomSandbox({ accessToken: 'token', clientSecret: 'secret' });
});
afterAll(async () => {
  await sandbox.close();
});

const client = () => createIntercomClient({ baseUrl: sandbox.url, accessToken: 'token', logger });
const searches = () => sandbox.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/search')).length;
const reads = () => sandbox.calls.filter((c) => c.method === 'GET').length;

describe('reconciling the support read cache with Intercom', () => {
  it('finds a change whose webhook never came with searches, and reads again only what changed', async () => {
    const intercom = client();
    // No webhooks reach anyone here, and the TTL is far away: only the reconciler can see the reply.
    const cache = await createSupportCache({ intercom, logger, ttlMs: 3_600_000 });
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const contact = await intercom.createContact(`reconcile-${String(Date.now())}-${String(i)}`);
      ids.push((await intercom.createConversation({ contactId: contact.id, body: 'hello' })).conversation_id);
    }
    for (const id of ids) await cache.conversation(id);
    // Older than the first look reaches back (Intercom's times are whole seconds).
    await new Promise((r) => setTimeout(r, 2_500));
    const [changed = ''] = ids;
    await sandbox.operator.reply(changed, { body: 'from the team' });

    const readsBefore = reads();
    const locks = replicaLocks(db.url);
    const reconciler = startSupportReconciler({
      intercom,
      cache,
      locks,
      logger,
      intervalMs: 200,
      overlapMs: 1_500,
    });
    try {
      const seen = await eventually(
        () => cache.conversation(changed),
        (read) => read.value.found && read.value.view.messages.length === 2,
      );
      expect(seen.stale).toBe(false);
      // Let a few more looks pass: a change already invalidated is not invalidated again.
      const looks = searches();
      await eventually(
        () => Promise.resolve(searches()),
        (n) => n >= looks + 6,
      );
      for (const id of ids) await cache.conversation(id);
      // One read again: the changed conversation; the nineteen others stay cached.
      expect(reads() - readsBefore).toBe(1);

      // A lost webhook leaves the contact's list stale even where the conversation itself was read
      // after the change (here, for the first time): the list is refreshed too.
      const contact = await intercom.createContact(`reconcile-list-${String(Date.now())}`);
      const fresh = (await intercom.createConversation({ contactId: contact.id, body: 'hi' }))
        .conversation_id;
      // Past the looks that find the conversation's creation (which invalidate the list), the list is cached.
      await new Promise((r) => setTimeout(r, 1_100));
      const settled = searches();
      await eventually(
        () => Promise.resolve(searches()),
        (n) => n >= settled + 6,
      );
      const listed = await cache.conversations(contact.id);
      const before = listed.value.items.find((c) => c.id === fresh)?.updated_at ?? 0;
      await sandbox.operator.reply(fresh, { body: 'no webhook for this one' });
      const read = await cache.conversation(fresh);
      expect(read.value.found && read.value.view.messages.length).toBe(2);
      await eventually(
        () => cache.conversations(contact.id),
        (list) => (list.value.items.find((c) => c.id === fresh)?.updated_at ?? 0) > before,
      );
    } finally {
      await reconciler.stop();
      await locks.close();
      await cache.close();
    }
  });
});
