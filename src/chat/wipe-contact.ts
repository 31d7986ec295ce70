import type { DatabasePool } from '../db/pool.ts';
import type { IntercomSandbox } from '../integrations/intercom/sandbox/index.ts';
import type { ContactMapping } from './contacts.ts';
import type { SupportCache } from './support-cache.ts';
import { forgetSupportReads } from './support-reads.ts';
import { contactOfUser, forgetContact } from './user-contacts.ts';

export interface WipeDeps {
  readonly pool: DatabasePool;
  readonly contacts: Pick<ContactMapping, 'forget'>;
  readonly cache: Pick<SupportCache, 'invalidate'>;
  readonly sandbox: IntercomSandbox | null;
}

/**
 * Development only (API.md devtools): the user starts over in the support chat as if new. Their contact
 * mapping and read markers go; with the sandbox, so does the contact there.
 */
export async function wipeContact(deps: WipeDeps, userId: string): Promise<void> {
  await forgetSupportReads(deps.pool, userId);
  const contactId = await contactOfUser(deps.pool, userId);
  deps.contacts.forget(userId);
  if (contactId === null) return;
  await forgetContact(deps.pool, contactId);
  await deps.cache.invalidate({ contactIds: [contactId] });
  if (deps.sandbox?.state.contacts.has(contactId)) deps.sandbox.operator.deleteContact(contactId);
}
