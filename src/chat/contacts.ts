import { LRUCache } from 'lru-cache';
import type { DatabasePool } from '../db/pool.ts';
import { type ChangeStamps, supportScopes } from './stamps.ts';
import { batched } from '../lib/batched.ts';
import {
  contactOfUser,
  contactsOfUsers,
  forgetUserContact,
  saveUserContact,
  withUserContactLock,
} from './user-contacts.ts';
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

/** Users whose mapping (or lack of one) this process keeps in memory. */
const REMEMBERED_USERS = 200_000;

/**
 * Users map to Intercom contacts by `external_id` = our user id (INTEGRATIONS.md). The mapping is stored in
 * `user_contacts`, so only a user's very first request talks to Intercom about it. Concurrent first requests
 * share one lookup in this process and take turns across replicas (an advisory lock), so one contact is
 * created. Creating can still meet a contact Intercom already has (made elsewhere, or archived and so
 * invisible to the lookup): its 409 names the id, and an archived one is unarchived.
 */
export function contactMapping(
  pool: DatabasePool,
  intercom: ContactCalls,
  stamps: ChangeStamps,
): ContactMapping {
  const pending = new Map<string, Promise<string>>();
  // Many users' first polls at once (a fleet arriving, a replica restarting) share one query.
  const stored = batched((userIds: readonly string[]) => contactsOfUsers(pool, userIds));
  // A mapping, or the lack of one, as read under its scope's token: a poll then needs no query to know
  // whose it is, and a mapping made or dropped on any replica moves the token (decision 022).
  const remembered = new LRUCache<string, { readonly contactId: string | null; readonly token: string }>({
    max: REMEMBERED_USERS,
  });
  const tokenOf = (userId: string) => stamps.of(supportScopes.contact(userId));
  const recall = (userId: string) => {
    const entry = remembered.get(userId);
    return entry !== undefined && entry.token === tokenOf(userId) ? entry : undefined;
  };
  const changed = (userId: string) => {
    remembered.delete(userId);
    stamps.announce('contacts', null, [supportScopes.contact(userId)]);
  };

  const resolve = async (userId: string): Promise<string> => {
    const known = await stored(userId);
    if (known !== null) return known;
    return withUserContactLock(pool, userId, async (tx) => {
      const meanwhile = await contactOfUser(tx, userId);
      if (meanwhile !== null) return meanwhile;
      const contactId = await findOrCreate(intercom, userId);
      await saveUserContact(tx, userId, contactId);
      return contactId;
    }).then((contactId) => {
      changed(userId);
      return contactId;
    });
  };

  return {
    contactFor(userId) {
      const known = recall(userId)?.contactId;
      if (typeof known === 'string') return Promise.resolve(known);
      let found = pending.get(userId);
      if (!found) {
        found = resolve(userId)
          .then((contactId) => {
            // Just read or just made: current, whatever the token moved to meanwhile.
            remembered.set(userId, { contactId, token: tokenOf(userId) });
            return contactId;
          })
          .finally(() => pending.delete(userId));
        pending.set(userId, found);
      }
      return found;
    },
    async knownContact(userId) {
      const known = recall(userId);
      if (known !== undefined) return known.contactId;
      // The token before the read: a change while it runs leaves the entry under the old token, unused.
      const token = tokenOf(userId);
      const contactId = await stored(userId);
      remembered.set(userId, { contactId, token });
      return contactId;
    },
    forget(userId) {
      changed(userId);
    },
    async renew(userId, goneContactId) {
      await forgetUserContact(pool, userId, goneContactId);
      changed(userId);
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
