import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';
import type { ContactDeletion, IntercomClient } from '../integrations/intercom/client.ts';
import type { ContactMapping } from './contacts.ts';
import { forgetContactNotifications } from './processed-events.ts';
import type { SupportCache } from './support-cache.ts';
import { forgetSupportReads, type SupportReads } from './support-reads.ts';
import { contactOfUser, forgetContact, withUserContactLock } from './user-contacts.ts';

export interface EraseContactDeps {
  readonly pool: DatabasePool;
  readonly intercom: Pick<IntercomClient, 'deleteContact' | 'findContactByExternalId'>;
  readonly contacts: Pick<ContactMapping, 'forget'>;
  readonly reads: Pick<SupportReads, 'forget'>;
  readonly cache: Pick<SupportCache, 'forget'>;
}

export interface ContactErasure {
  /** The contact erased, or null when Intercom had none for the user. */
  readonly contactId: string | null;
  /** `none`: no contact to delete (a second erasure, or a user who never wrote to support). */
  readonly provider: ContactDeletion | 'none';
}

/**
 * Erases the user's support side. Intercom deletes the contact, and its conversations and tickets with it;
 * only then does this service forget the mapping (`telemetry_digest` with it), the read markers, the inbox
 * rows naming the contact and the cached reads, so a failed deletion (it throws) leaves the contact id for
 * the retry. A user without a mapping may still have a contact whose mapping was never saved: Intercom is
 * asked for it by external id. Run twice, the second finds nothing and succeeds.
 *
 * Kept: `conversation_durations` (a conversation id and two times, for analytics; the conversation is gone
 * at Intercom, so nothing leads back to the user), as Intercom keeps deleted contacts' conversations in its
 * reporting.
 */
export async function eraseContact(deps: EraseContactDeps, userId: string): Promise<ContactErasure> {
  // Under the lock that creating a contact takes: no contact is made for the user meanwhile.
  const erased = await withUserContactLock(deps.pool, userId, async (tx) => {
    const contactId =
      (await contactOfUser(tx, userId)) ?? (await deps.intercom.findContactByExternalId(userId))?.id ?? null;
    const shown = await shownRecords(tx, userId);
    const provider: ContactErasure['provider'] =
      contactId === null ? 'none' : await deps.intercom.deleteContact(contactId);
    await forgetSupportReads(tx, userId);
    if (contactId !== null) {
      await forgetContact(tx, contactId);
      await forgetContactNotifications(tx, contactId);
    }
    return { contactId, provider, shown };
  });
  deps.contacts.forget(userId);
  deps.reads.forget(userId);
  await deps.cache.forget({
    contactIds: erased.contactId === null ? [] : [erased.contactId],
    conversationIds: erased.shown.conversationIds,
    ticketIds: erased.shown.ticketIds,
  });
  return { contactId: erased.contactId, provider: erased.provider };
}

/** The conversations and tickets the user has opened: their cached reads go too. */
async function shownRecords(db: CommonQueryMethods, userId: string) {
  const ids = z.object({ id: z.string() });
  return {
    conversationIds: await db.anyFirst(sql.type(ids)`
      SELECT conversation_id AS id FROM conversation_reads WHERE user_id = ${userId}`),
    ticketIds: await db.anyFirst(sql.type(ids)`
      SELECT ticket_id AS id FROM ticket_reads WHERE user_id = ${userId}`),
  };
}

/**
 * What a data export says about the support provider's part, which the export cannot hold: Intercom keeps
 * the conversations and tickets, and only a workspace admin there can export or delete them.
 */
export function supportExportNotice(userId: string, contactId: string | null): string {
  if (contactId === null) {
    return (
      'Support conversations are kept by Intercom, our support provider. No Intercom contact is recorded ' +
      `for this user; an admin of our Intercom workspace can confirm by looking up the external id "${userId}".`
    );
  }
  return (
    'Support conversations and tickets are kept by Intercom, our support provider, not by this service, ' +
    `so they are not in this export. They belong to Intercom contact "${contactId}" (external id ` +
    `"${userId}"): an admin of our Intercom workspace exports them from that contact in Intercom, and ` +
    'deletes them there when the user asks for erasure.'
  );
}
