import { LRUCache } from 'lru-cache';
import type { DatabasePool } from '../db/pool.ts';
import { contactOfUser, forgetUserContact, saveUserContact, withUserContactLock } from './user-contacts.ts';
import { type IntercomClient, parseExistingContactId } from '../integrations/intercom/client.ts';
import { isProviderError } from '../integrations/intercom/errors.ts';

type ContactCalls = Pick<IntercomClient, 'findContactByExternalId' | 'createContact' | 'unarchiveContact'>;

export interface ContactMapping {
  /** The Intercom contact id of a user of ours: found or created at Intercom once, then remembered. */
  contactFor(userId: string): Promise<string>;
  /** The user's contact if they have one already; never asks Intercom (reads need no new contact). */
  knownContact(userId: string): Promise<string | null>;
  /** Forgets a mapping this process remembers (the row is someone else's business). */
  forget(userId: string): void;
  /**
   * The contact Intercom no longer knows (deleted there, or a restarted sandbox): the mapping to it is
   * dropped and the user gets a contact again.
   */
  renew(userId: string, goneContactId: string): Promise<string>;
}

/**
 * Mappings change only when a contact is wiped (development) or deleted at Intercom, so this process keeps
 * them a while: a poll then needs no query to know whose it is. Another replica forgetting one is seen
 * here after at most this long.
 */
const REMEMBER_MS = 60_000;

/**
 * Users map to Intercom contacts by `external_id` = our user id (INTEGRATIONS.md). The mapping is stored in
 * `user_contacts`, so only a user's very first request talks to Intercom about it. Concurrent first requests
 * share one lookup in this process and take turns across replicas (an advisory lock), so one contact is
 * created. Creating can still meet a contact Intercom already has (made elsewhere, or archived and so
 * invisible to the lookup): its 409 names the id, and an archived one is unarchived.
 */
export function contactMapping(pool: DatabasePool, intercom: ContactCalls): ContactMapping {
  const pending = new Map<string, Promise<string>>();
  const remembered = new LRUCache<string, string>({ max: 100_000, ttl: REMEMBER_MS });

  const resolve = async (userId: string): Promise<string> => {
    const known = await contactOfUser(pool, userId);
    if (known !== null) return known;
    return withUserContactLock(pool, userId, async (tx) => {
      const meanwhile = await contactOfUser(tx, userId);
      if (meanwhile !== null) return meanwhile;
      const contactId = await findOrCreate(intercom, userId);
      await saveUserContact(tx, userId, contactId);
      return contactId;
    });
  };

  return {
    contactFor(userId) {
      const known = remembered.get(userId);
      if (known !== undefined) return Promise.resolve(known);
      let found = pending.get(userId);
      if (!found) {
        found = resolve(userId)
          .then((contactId) => {
            remembered.set(userId, contactId);
            return contactId;
          })
          .finally(() => pending.delete(userId));
        pending.set(userId, found);
      }
      return found;
    },
    async knownContact(userId) {
      const known = remembered.get(userId);
      if (known !== undefined) return known;
      const stored = await contactOfUser(pool, userId);
      if (stored !== null) remembered.set(userId, stored);
      return stored;
    },
    forget(userId) {
      remembered.delete(userId);
    },
    async renew(userId, goneContactId) {
      remembered.delete(userId);
      await forgetUserContact(pool, userId, goneContactId);
      return this.contactFor(userId);
    },
  };
}

async function findOrCreate(intercom: ContactCalls, externalId: string): Promise<string> {
  const found = await intercom.findContactByExternalId(externalId);
  if (found) return found.id;
  try {
    return (await intercom.createContact(externalId)).id;
  } catch (error) {
    const existing = isProviderError(error, 'conflict')
      ? parseExistingContactId(error.providerMessage)
      : null;
    if (!existing) throw error;
    if (existing.archived) await intercom.unarchiveContact(existing.id);
    return existing.id;
  }
}
