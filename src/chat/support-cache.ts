import type { Redis } from 'ioredis';
import { weakEtag } from '../lib/digest.ts';
import type { Logger } from 'pino';
import type { IntercomClient } from '../integrations/intercom/client.ts';
import { isProviderError } from '../integrations/intercom/errors.ts';
import type { ConversationListItem, Page, Ticket } from '../integrations/intercom/schemas.ts';
import {
  type ConversationView,
  type LastMessage,
  conversationView,
  lastMessageOf,
} from './conversation-views.ts';
import { lastTeamPartAt, type TicketView, ticketView } from './ticket-views.ts';
import { createInvalidationBus } from './invalidation-bus.ts';
import type { SupportCacheInvalidator } from './invalidation.ts';
import { type CachedRead, createReadCache } from './read-cache.ts';

type ReadCalls = Pick<
  IntercomClient,
  'getConversation' | 'searchConversationsByContact' | 'getTicket' | 'searchTicketsByContact'
>;

/**
 * One record as its owner sees it, serialised once per load so that polls only compare tags; `derived` is
 * what other reads need of it and is costly to make (a list row's preview), also made once per load.
 */
export type Owned<T, D = undefined> =
  | {
      readonly found: true;
      /** The contacts it belongs to: a caller whose contact is not among them gets 403. */
      readonly ownerIds: readonly string[];
      readonly view: T;
      readonly json: string;
      readonly etag: string;
      readonly derived: D;
    }
  | { readonly found: false };

/** What a conversation list row needs beyond the view. */
export interface ConversationDerived {
  readonly lastMessage: LastMessage | undefined;
}
export type OwnedConversation = Owned<ConversationView, ConversationDerived>;

/** What the ticket badge needs beyond the view. */
export interface TicketDerived {
  /** `lastTeamPartAt` of the view: only what the user can see makes a ticket unread. */
  readonly lastTeamPartAt: number | null;
}
export type OwnedTicket = Owned<TicketView, TicketDerived>;

export interface ContactList<T> {
  readonly items: readonly T[];
}

/** An erased contact's part of the cache: its lists, and the conversations and tickets known to be theirs. */
export interface SupportForgetting {
  readonly contactIds: readonly string[];
  readonly conversationIds: readonly string[];
  readonly ticketIds: readonly string[];
}

export interface SupportCache extends SupportCacheInvalidator {
  conversation(id: string): Promise<CachedRead<OwnedConversation>>;
  conversations(contactId: string): Promise<CachedRead<ContactList<ConversationListItem>>>;
  ticket(id: string): Promise<CachedRead<OwnedTicket>>;
  tickets(contactId: string): Promise<CachedRead<ContactList<Ticket>>>;
  /**
   * Drops the copies, here and on every replica, not even kept as an outage's fallback; each replica also
   * drops the conversations and tickets its copies of the contacts' lists name.
   */
  forget(what: SupportForgetting): Promise<void>;
  close(): Promise<void>;
}

export interface SupportCacheOptions {
  readonly intercom: ReadCalls;
  readonly logger: Logger;
  /** Shares invalidations between replicas. */
  readonly redis?: Redis | undefined;
  readonly ttlMs: number;
  /** Entries per kind (default 50,000). */
  readonly max?: number;
}

/** Pages of a contact's search read at most: a user with more requests sees those the search returns first. */
const MAX_LIST_PAGES = 10;

function owned<T, D>(ownerIds: readonly string[], view: T, derived: D): Owned<T, D> {
  const json = JSON.stringify(view);
  return { found: true, ownerIds, view, json, etag: weakEtag(json), derived };
}

/** Intercom's 404 is an answer worth keeping too: a poll of a missing id must not reach Intercom each time. */
async function orMissing<T, D>(load: () => Promise<Owned<T, D>>): Promise<Owned<T, D>> {
  try {
    return await load();
  } catch (error) {
    if (isProviderError(error, 'not_found')) return { found: false };
    throw error;
  }
}

/** Every page of an Intercom search, following its cursor, up to `maxPages`. */
export async function allPages<T>(
  search: (after: string | undefined) => Promise<Page<T>>,
  maxPages = MAX_LIST_PAGES,
): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const result = await search(after);
    items.push(...result.items);
    if (result.startingAfter === null) break;
    after = result.startingAfter;
  }
  return items;
}

const byCreation = <T extends { readonly created_at: number; readonly id: string }>(a: T, b: T) =>
  a.created_at - b.created_at || a.id.localeCompare(b.id);

/**
 * The provider read cache of ARCHITECTURE.md: per conversation, per ticket, and per contact for their
 * lists. Concurrent misses of a key make one Intercom call; a webhook or the user's own write invalidates
 * the keys it concerns, on every replica through Redis when configured; with no invalidation an entry
 * answers until its TTL. When Intercom cannot be read, the last copy answers, marked stale.
 */
export async function createSupportCache(options: SupportCacheOptions): Promise<SupportCache> {
  const { intercom, ttlMs } = options;
  const max = options.max ?? 50_000;
  // Bodies are sanitised (and previews made) here, when an entry loads: polls reuse the result.
  const conversation = createReadCache<OwnedConversation>({
    ttlMs,
    max,
    load: (id) =>
      orMissing(async () => {
        const found = await intercom.getConversation(id);
        const view = conversationView(found);
        return owned(found.contacts, view, { lastMessage: lastMessageOf(view) });
      }),
  });
  const ticket = createReadCache<OwnedTicket>({
    ttlMs,
    max,
    load: (id) =>
      orMissing(async () => {
        const found = await intercom.getTicket(id);
        const view = ticketView(found);
        return owned(found.contacts, view, { lastTeamPartAt: lastTeamPartAt(view) });
      }),
  });
  const conversations = createReadCache<ContactList<ConversationListItem>>({
    ttlMs,
    max,
    load: async (contactId) => ({
      items: (await allPages((after) => intercom.searchConversationsByContact(contactId, after))).sort(
        byCreation,
      ),
    }),
  });
  const tickets = createReadCache<ContactList<Ticket>>({
    ttlMs,
    max,
    load: async (contactId) => ({
      items: (await allPages((after) => intercom.searchTicketsByContact(contactId, after))).sort(byCreation),
    }),
  });

  const caches = { conversation, ticket, conversations, tickets } as const;
  const bus = await createInvalidationBus(
    {
      apply: (keys) => {
        for (const key of keys) {
          const [kind, id] = splitKey(key);
          if (kind !== null) caches[kind].invalidate(id);
        }
      },
      applyAll: () => {
        for (const cache of Object.values(caches)) cache.invalidateAll();
      },
      forget: (keys) => {
        const listed = keys.flatMap((key) => {
          const [kind, id] = splitKey(key);
          if (kind === 'conversations') return idsOf(conversations.peek(id)).map((c) => `conversation:${c}`);
          if (kind === 'tickets') return idsOf(tickets.peek(id)).map((t) => `ticket:${t}`);
          return [];
        });
        for (const key of [...keys, ...listed]) {
          const [kind, id] = splitKey(key);
          if (kind !== null) caches[kind].delete(id);
        }
      },
    },
    options.redis,
    options.logger,
  );

  return {
    conversation: (id) => conversation.read(id),
    conversations: (contactId) => conversations.read(contactId),
    ticket: (id) => ticket.read(id),
    tickets: (contactId) => tickets.read(contactId),
    invalidate(change) {
      const keys = change.contactIds.flatMap((id) => [`conversations:${id}`, `tickets:${id}`]);
      if (change.conversationId !== undefined) keys.push(`conversation:${change.conversationId}`);
      if (change.ticketId !== undefined) keys.push(`ticket:${change.ticketId}`);
      return bus.publish(keys);
    },
    forget: (what) =>
      bus.forget([
        ...what.contactIds.flatMap((id) => [`conversations:${id}`, `tickets:${id}`]),
        ...what.conversationIds.map((id) => `conversation:${id}`),
        ...what.ticketIds.map((id) => `ticket:${id}`),
      ]),
    close: () => bus.close(),
  };
}

const idsOf = (list: ContactList<{ readonly id: string }> | undefined) =>
  list?.items.map((item) => item.id) ?? [];

type Kind = 'conversation' | 'ticket' | 'conversations' | 'tickets';
const KINDS: ReadonlySet<string> = new Set<Kind>(['conversation', 'ticket', 'conversations', 'tickets']);

function splitKey(key: string): [Kind, string] | [null, string] {
  const at = key.indexOf(':');
  const kind = key.slice(0, at);
  return at > 0 && KINDS.has(kind) ? [kind as Kind, key.slice(at + 1)] : [null, key];
}
