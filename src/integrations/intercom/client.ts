import { setTimeout as wait } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import { withRequestId } from '../../lib/request-context.ts';
import { createBudget } from './budget.ts';
import { redisHold } from './shared-hold.ts';
import { ProviderError, isProviderError } from './errors.ts';
import { createSend, type IntercomRequest } from './http.ts';
import type { ProviderCalls } from '../../lib/provider-calls.ts';
import { type CallKind, createResilience } from './resilience.ts';
import {
  adminSchema,
  contactListSchema,
  contactSchema,
  conversationListSchema,
  conversationSchema,
  createdMessageSchema,
  deletedContactSchema,
  tagSchema,
  ticketListSchema,
  ticketPartSchema,
  ticketSchema,
  unarchivedContactSchema,
  type Admin,
  type Contact,
  type Conversation,
  type ConversationListItem,
  type CreatedMessage,
  type Page,
  type Tag,
  type Ticket,
  type UnarchivedContact,
} from './schemas.ts';

export interface IntercomClientOptions {
  /** From `intercomBaseUrl(config)`. */
  readonly baseUrl: string;
  readonly accessToken: string;
  readonly logger: Logger;
  /** Shares the call budget and a 429's hold between replicas. */
  readonly redis?: Redis | undefined;
  /** How many processes share the budget, for their shares while Redis is away (the heartbeat). */
  readonly liveInstances?: () => number;
  /** Counts each HTTP exchange (`provider_requests_total`). */
  readonly calls?: ProviderCalls | undefined;
  /** Per attempt. Default 5 s. */
  readonly timeoutMs?: number;
  /** Calls per budget window across the app. Default 1,500, under Intercom's 1,666 per 10 s (10,000 a minute). */
  readonly budgetPerWindow?: number;
  /** Default 10 s, Intercom's window. */
  readonly budgetWindowMs?: number;
  /** Longest wait for the budget or a 429's reset before failing as `rate_limited`. Default 2 s. */
  readonly maxWaitMs?: number;
  /** Redis key prefix of the budget counters. */
  readonly budgetKeyPrefix?: string;
  /** Extra attempts for reads that found Intercom unavailable. Default 2. */
  readonly maxRetries?: number;
  readonly retryInitialDelayMs?: number;
  readonly retryMaxDelayMs?: number;
  /** Consecutive outages that open the breaker. Default 5. */
  readonly breakerThreshold?: number;
  /** Default 10 s. */
  readonly breakerHalfOpenAfterMs?: number;
  /** The wait after a 429 without a usable `X-RateLimit-Reset`. Default 10 s. */
  readonly rateLimitFallbackMs?: number;
  /** Results per search page (Intercom's maximum is 150). Default 50. */
  readonly searchPageSize?: number;
  /** The clock of budget windows and 429 resets (ms since the epoch). Default `Date.now`; tests drive their own. */
  readonly now?: () => number;
  /** How a call waits for the next window or a reset. Default a timer; tests drive their own. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export const INTERCOM_CLIENT_DEFAULTS = {
  timeoutMs: 5_000,
  budgetPerWindow: 1_500,
  budgetWindowMs: 10_000,
  maxWaitMs: 2_000,
  budgetKeyPrefix: 'intercom:budget',
  maxRetries: 2,
  retryInitialDelayMs: 100,
  retryMaxDelayMs: 1_000,
  breakerThreshold: 5,
  breakerHalfOpenAfterMs: 10_000,
  rateLimitFallbackMs: 10_000,
  searchPageSize: 50,
} as const;

/** Intercom takes at most 10 attachment URLs per message. */
export const MAX_ATTACHMENT_URLS = 10;

export interface NewConversation {
  readonly contactId: string;
  readonly body: string;
  readonly attachmentUrls?: readonly string[];
}

export interface UserReply extends NewConversation {
  readonly conversationId: string;
}

/** What the app changes on a contact: custom attributes only (the workspace defines them). */
export interface ContactUpdate {
  readonly customAttributes: Readonly<Record<string, string | null>>;
}

export interface ExistingContact {
  readonly id: string;
  readonly archived: boolean;
}

/**
 * The contact a 409 on `POST /contacts` names: "A contact matching those details already exists with
 * id=…", or "An archived contact matching those details already exists with id=…". Null when the
 * message names none.
 */
export function parseExistingContactId(message: string | undefined): ExistingContact | null {
  const id = /\bid=([A-Za-z0-9_-]+)/.exec(message ?? '')?.[1];
  if (id === undefined || message === undefined) return null;
  return { id, archived: /\barchived\b/i.test(message) };
}

/** How a contact deletion ended: deleted now, or already gone (deleted before, or never there). */
export type ContactDeletion = 'deleted' | 'absent';

/** What the app reads of a note it wrote (`POST /contacts/{id}/notes`). */
const contactNoteSchema = z.looseObject({ type: z.literal('note'), id: z.coerce.string() });
export type ContactNote = z.infer<typeof contactNoteSchema>;

export type IntercomClient = ReturnType<typeof createIntercomClient>;

/**
 * The Intercom REST API (version 2.15) as the app uses it. Every call goes through the policies of
 * resilience.ts and the app-wide budget; every answer is checked against schemas.ts; every failure is a
 * `ProviderError` (see problem.ts for what the API answers). No state outside the returned object.
 */
export function createIntercomClient(options: IntercomClientOptions) {
  if (options.accessToken.trim() === '') throw new Error('Intercom access token is empty');
  const settings = { ...INTERCOM_CLIENT_DEFAULTS, ...definedOnly(options) };
  // Lines of calls made while handling a request carry its `reqId`; the inbox, reconcile and processor
  // workers' calls have none.
  const logger = options.logger.child({ provider: 'intercom' }, { formatters: withRequestId });
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => wait(ms));
  const send = createSend({
    baseUrl: options.baseUrl,
    accessToken: options.accessToken,
    logger,
    timeoutMs: settings.timeoutMs,
    rateLimitFallbackMs: settings.rateLimitFallbackMs,
    calls: options.calls,
    now,
  });
  const resilience = createResilience({
    maxRetries: settings.maxRetries,
    retryInitialDelayMs: settings.retryInitialDelayMs,
    retryMaxDelayMs: settings.retryMaxDelayMs,
    breakerThreshold: settings.breakerThreshold,
    breakerHalfOpenAfterMs: settings.breakerHalfOpenAfterMs,
    maxWaitMs: settings.maxWaitMs,
    logger,
    now,
    sleep,
    sharedHold: options.redis
      ? redisHold(options.redis, `${settings.budgetKeyPrefix}:hold`, logger, now)
      : undefined,
    budget: createBudget({
      perWindow: settings.budgetPerWindow,
      windowMs: settings.budgetWindowMs,
      maxWaitMs: settings.maxWaitMs,
      keyPrefix: settings.budgetKeyPrefix,
      redis: options.redis,
      ...(options.liveInstances === undefined ? {} : { liveInstances: options.liveInstances }),
      logger,
      now,
      sleep,
    }),
  });

  async function call<S extends z.ZodType>(kind: CallKind, request: IntercomRequest, schema: S) {
    const answer = await resilience.run(kind, request.method, request.route, () => send(request));
    const parsed = schema.safeParse(answer);
    if (parsed.success) return parsed.data;
    // Paths and codes only: the issues' messages and inputs may quote the answer's content.
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => ({ path: i.path.map(String).join('.'), code: i.code }));
    logger.warn(
      { method: request.method, route: request.route, issues },
      'intercom answer did not match its schema',
    );
    throw new ProviderError({
      kind: 'unavailable',
      reason: 'malformed_response',
      method: request.method,
      route: request.route,
    });
  }

  const attachments = (route: string, urls: readonly string[] = []) => {
    if (urls.length > MAX_ATTACHMENT_URLS) {
      throw new ProviderError({ kind: 'invalid', method: 'POST', route });
    }
    return urls.length === 0 ? {} : { attachment_urls: [...urls] };
  };

  const search = (query: Record<string, unknown>, startingAfter: string | undefined) => ({
    query,
    // The cursor goes in the body: Intercom ignores it in the query string.
    pagination: {
      per_page: settings.searchPageSize,
      ...(startingAfter === undefined ? {} : { starting_after: startingAfter }),
    },
  });
  const byContact = (contactId: string) => ({ field: 'contact_ids', operator: '=', value: contactId });
  const updatedSince = (since: number) => ({ field: 'updated_at', operator: '>', value: since });
  const searchConversations = async (
    query: Record<string, unknown>,
    startingAfter: string | undefined,
  ): Promise<Page<ConversationListItem>> => {
    const body = search(query, startingAfter);
    const list = await call(
      'read',
      { method: 'POST', route: '/conversations/search', body },
      conversationListSchema,
    );
    return { items: list.conversations, startingAfter: list.pages.next };
  };
  const searchTickets = async (
    query: Record<string, unknown>,
    startingAfter: string | undefined,
  ): Promise<Page<Ticket>> => {
    const body = search(query, startingAfter);
    const list = await call('read', { method: 'POST', route: '/tickets/search', body }, ticketListSchema);
    return { items: list.tickets, startingAfter: list.pages.next };
  };

  return {
    /** The token's admin (its id writes notes and tags) and the workspace's `app.id_code`. */
    me: (): Promise<Admin> => call('read', { method: 'GET', route: '/me' }, adminSchema),

    /** Users only; null when Intercom has no user with this external id. */
    async findContactByExternalId(externalId: string): Promise<Contact | null> {
      try {
        return await call(
          'read',
          { method: 'GET', route: '/contacts/find_by_external_id/{id}', params: { id: externalId } },
          contactSchema,
        );
      } catch (error) {
        if (isProviderError(error, 'not_found')) return null;
        throw error;
      }
    },

    /** A contact created a moment ago may be missing from search for minutes. */
    async searchContactsByExternalId(externalId: string): Promise<Contact[]> {
      const body = { query: { field: 'external_id', operator: '=', value: externalId } };
      const list = await call('read', { method: 'POST', route: '/contacts/search', body }, contactListSchema);
      return list.data;
    },

    /** A duplicate is a `conflict`: read its id with `parseExistingContactId(error.providerMessage)`. */
    createContact: (externalId: string): Promise<Contact> =>
      call(
        'write',
        { method: 'POST', route: '/contacts', body: { role: 'user', external_id: externalId } },
        contactSchema,
      ),

    /**
     * Sets custom attributes of a contact (`PUT /contacts/{id}`): the keys given change, the others stay; a
     * null clears one. A contact Intercom does not know is `not_found`.
     */
    updateContact: (contactId: string, update: ContactUpdate): Promise<Contact> =>
      call(
        'write',
        {
          method: 'PUT',
          route: '/contacts/{id}',
          params: { id: contactId },
          body: { custom_attributes: { ...update.customAttributes } },
        },
        contactSchema,
      ),

    unarchiveContact: (contactId: string): Promise<UnarchivedContact> =>
      call(
        'write',
        { method: 'POST', route: '/contacts/{id}/unarchive', params: { id: contactId } },
        unarchivedContactSchema,
      ),

    /**
     * Deletes the contact (`DELETE /contacts/{id}`); Intercom removes its conversations and tickets with it.
     * A 404 means it is gone already: `absent`, so a retried erasure succeeds. Never retried here (a write);
     * an outage throws `unavailable` for the caller to try again.
     */
    async deleteContact(contactId: string): Promise<ContactDeletion> {
      try {
        await call(
          'write',
          { method: 'DELETE', route: '/contacts/{id}', params: { id: contactId } },
          deletedContactSchema,
        );
        return 'deleted';
      } catch (error) {
        if (isProviderError(error, 'not_found')) return 'absent';
        throw error;
      }
    },

    /** Opens a conversation as the user; its id is the answer's `conversation_id`. */
    async createConversation(input: NewConversation): Promise<CreatedMessage> {
      const body = {
        from: { type: 'user', id: input.contactId },
        body: input.body,
        ...attachments('/conversations', input.attachmentUrls),
      };
      return call('write', { method: 'POST', route: '/conversations', body }, createdMessageSchema);
    },

    /** A user reply; on a closed conversation it reopens it. */
    async replyAsUser(input: UserReply): Promise<Conversation> {
      const route = '/conversations/{id}/reply';
      const body = {
        message_type: 'comment',
        type: 'user',
        intercom_user_id: input.contactId,
        body: input.body,
        ...attachments(route, input.attachmentUrls),
      };
      return call(
        'write',
        { method: 'POST', route, params: { id: input.conversationId }, body },
        conversationSchema,
      );
    },

    getConversation: (id: string): Promise<Conversation> =>
      call('read', { method: 'GET', route: '/conversations/{id}', params: { id } }, conversationSchema),

    searchConversationsByContact: (contactId: string, startingAfter?: string) =>
      searchConversations(byContact(contactId), startingAfter),

    /** Conversations updated after `since` (unix seconds), for reconciling the read cache. */
    searchConversationsUpdatedSince: (since: number, startingAfter?: string) =>
      searchConversations(updatedSince(since), startingAfter),

    markConversationRead: (id: string): Promise<Conversation> =>
      call(
        'write',
        { method: 'PUT', route: '/conversations/{id}', params: { id }, body: { read: true } },
        conversationSchema,
      ),

    tagConversation: (id: string, tagId: string, adminId: string): Promise<Tag> =>
      call(
        'write',
        {
          method: 'POST',
          route: '/conversations/{id}/tags',
          params: { id },
          body: { id: tagId, admin_id: adminId },
        },
        tagSchema,
      ),

    /**
     * Closes the conversation as the admin `adminId` (the app, on the user's behalf). Intercom answers the
     * conversation with the new `close` part only, and sends `conversation.admin.closed` as for any close.
     */
    closeConversation: (id: string, adminId: string): Promise<Conversation> =>
      call(
        'write',
        {
          method: 'POST',
          route: '/conversations/{id}/parts',
          params: { id },
          body: { message_type: 'close', type: 'admin', admin_id: adminId },
        },
        conversationSchema,
      ),

    /** An internal note: never shown to the user. */
    addConversationNote: (id: string, body: string, adminId: string): Promise<Conversation> =>
      call(
        'write',
        {
          method: 'POST',
          route: '/conversations/{id}/reply',
          params: { id },
          body: { message_type: 'note', type: 'admin', admin_id: adminId, body },
        },
        conversationSchema,
      ),

    /**
     * An internal note on a contact (HTML body), written as `adminId` or, without one, as the token's admin.
     * Never shown to the user. A contact Intercom does not know (deleted, archived) is `not_found`.
     */
    addContactNote: (contactId: string, body: string, adminId?: string): Promise<ContactNote> =>
      call(
        'write',
        {
          method: 'POST',
          route: '/contacts/{id}/notes',
          params: { id: contactId },
          body: { body, ...(adminId === undefined ? {} : { admin_id: adminId }) },
        },
        contactNoteSchema,
      ),

    searchTicketsByContact: (contactId: string, startingAfter?: string) =>
      searchTickets(byContact(contactId), startingAfter),

    /** Tickets updated after `since` (unix seconds), for reconciling the read cache. */
    searchTicketsUpdatedSince: (since: number, startingAfter?: string) =>
      searchTickets(updatedSince(since), startingAfter),

    getTicket: (id: string): Promise<Ticket> =>
      call('read', { method: 'GET', route: '/tickets/{id}', params: { id } }, ticketSchema),

    /** An internal note on a ticket, never shown to the user; Intercom answers the new part. */
    addTicketNote: (id: string, body: string, adminId: string): Promise<z.infer<typeof ticketPartSchema>> =>
      call(
        'write',
        {
          method: 'POST',
          route: '/tickets/{id}/reply',
          params: { id },
          body: { message_type: 'note', type: 'admin', admin_id: adminId, body },
        },
        ticketPartSchema,
      ),

    tagTicket: (id: string, tagId: string, adminId: string): Promise<Tag> =>
      call(
        'write',
        {
          method: 'POST',
          route: '/tickets/{id}/tags',
          params: { id },
          body: { id: tagId, admin_id: adminId },
        },
        tagSchema,
      ),

    /** Creates the tag, or answers the existing one of that name. */
    createTag: (name: string): Promise<Tag> =>
      call('write', { method: 'POST', route: '/tags', body: { name } }, tagSchema),

    /** For health checks and metrics. */
    state: resilience.state,
  };
}

/** The options a caller set, so that an explicit `undefined` does not hide a default. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
