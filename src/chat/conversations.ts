import type { Logger } from 'pino';
import { forbidden, notFound } from '../lib/domain-error.ts';
import { findFile } from '../files/file-records.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { DeviceTelemetry } from '../lib/device-telemetry.ts';
import { reportContactTelemetry } from './contact-telemetry.ts';
import { activeReasons } from './reasons.ts';
import type { SupportReads } from './support-reads.ts';
import { signedFileUrl } from '../files/signed-urls.ts';
import type { IntercomClient } from '../integrations/intercom/client.ts';
import { isProviderError } from '../integrations/intercom/errors.ts';
import {
  type ConversationSummary,
  type ConversationView,
  conversationSummary,
} from './conversation-views.ts';
import type { ContactMapping } from './contacts.ts';
import type { CachedRead } from './read-cache.ts';
import type { ConversationDerived, Owned, SupportCache } from './support-cache.ts';
import { weakEtag } from '../lib/digest.ts';
import { userTextToHtml } from './text.ts';

export interface ChatDeps {
  readonly pool: DatabasePool;
  readonly intercom: Pick<
    IntercomClient,
    | 'createConversation'
    | 'replyAsUser'
    | 'markConversationRead'
    | 'closeConversation'
    | 'me'
    | 'createTag'
    | 'tagConversation'
    | 'updateContact'
  >;
  readonly contacts: ContactMapping;
  readonly cache: SupportCache;
  /** The user's read markers, cached per user. */
  readonly reads: SupportReads;
  readonly logger: Logger;
  /** How attachments become links Intercom can fetch. */
  readonly files: {
    readonly secret: string;
    /** PUBLIC_BASE_URL, or the service's own address in development. */
    readonly publicBaseUrl: () => string;
    readonly ttlSeconds: number;
  };
}

/** A read that answered from the last copy because Intercom could not be asked. */
export interface Freshness {
  readonly stale: boolean;
  readonly fetchedAt: number;
}

type Found<T, D = undefined> = Extract<Owned<T, D>, { found: true }>;

/**
 * A cached record the caller's contact owns, or the API's refusal: 404 when Intercom has no such record,
 * 403 when it belongs to someone else (or the caller has no contact yet, so owns nothing).
 */
export function ownedBy<T, D>(
  read: CachedRead<Owned<T, D>>,
  contactId: string | null,
  what: string,
): Found<T, D> {
  const record = read.value;
  if (!record.found) throw notFound(`${what} not found`);
  if (contactId === null || !record.ownerIds.includes(contactId)) {
    throw forbidden(`This ${what.toLowerCase()} belongs to another user`);
  }
  return record;
}

export async function conversationFor(
  deps: Pick<ChatDeps, 'cache' | 'contacts'>,
  userId: string,
  conversationId: string,
): Promise<{ record: Found<ConversationView, ConversationDerived>; freshness: Freshness }> {
  const [contactId, read] = await Promise.all([
    deps.contacts.knownContact(userId),
    deps.cache.conversation(conversationId),
  ]);
  return { record: ownedBy(read, contactId, 'Conversation'), freshness: read };
}

/** The one continuous thread: every request of the user's, oldest first, closed ones included. */
/** What a user's list is made of: the contact's list, the user's read markers, each conversation's read. */
async function listInputs(deps: Pick<ChatDeps, 'cache' | 'contacts' | 'reads'>, userId: string) {
  const contactId = await deps.contacts.knownContact(userId);
  // No contact yet: the user has never written, so there is nothing to ask Intercom about.
  if (contactId === null) return null;
  const [list, markers] = await Promise.all([
    deps.cache.conversations(contactId),
    deps.reads.markers(userId),
  ]);
  const reads = await Promise.all(list.value.items.map((item) => deps.cache.conversation(item.id)));
  return { contactId, list, markers, reads };
}
type ListInputs = NonNullable<Awaited<ReturnType<typeof listInputs>>>;

/** Several reads as one: stale if any is, as old as the oldest. */
export function freshnessOfAll(reads: readonly [Freshness, ...Freshness[]]): Freshness {
  let [{ stale, fetchedAt }] = reads;
  for (const read of reads) {
    stale ||= read.stale;
    fetchedAt = Math.min(fetchedAt, read.fetchedAt);
  }
  return { stale, fetchedAt };
}

function summariesOf({ contactId, list, markers, reads }: ListInputs): ConversationSummary[] {
  const items: ConversationSummary[] = [];
  list.value.items.forEach((item, index) => {
    const read = reads[index];
    if (!read?.value.found || !read.value.ownerIds.includes(contactId)) return;
    const { view, derived } = read.value;
    items.push(conversationSummary(item, view, derived.lastMessage, markers.get(item.id)));
  });
  return items;
}

export async function conversationsOf(
  deps: Pick<ChatDeps, 'cache' | 'contacts' | 'reads'>,
  userId: string,
): Promise<{ items: ConversationSummary[]; freshness: Freshness }> {
  const inputs = await listInputs(deps, userId);
  if (inputs === null) return { items: [], freshness: { stale: false, fetchedAt: Date.now() } };
  return { items: summariesOf(inputs), freshness: freshnessOfAll([inputs.list, ...inputs.reads]) };
}

/** A user's CSAT ratings of one kind of target (decision 029): target id → stars. */
export interface Ratings {
  of(userId: string): Promise<ReadonlyMap<string, number>>;
}

const ratedCopies = new WeakMap<
  object,
  { readonly rating: number; readonly etag: string; readonly json: string }
>();

/**
 * The CSAT overlay on a cached record (decision 029): unrated, the record's own tag and JSON; rated, a copy
 * with `rated` and `rating`, serialised once per record and rating, so a poll of it costs a lookup.
 */
export function withRating(
  record: { readonly view: object; readonly etag: string; readonly json: string },
  rating: number | undefined,
): { readonly etag: string; readonly json: string } {
  if (rating === undefined) return record;
  const known = ratedCopies.get(record);
  if (known?.rating === rating) return known;
  const json = JSON.stringify({ ...record.view, rated: true, rating });
  const copy = { rating, etag: weakEtag(json), json };
  ratedCopies.set(record, copy);
  return copy;
}

/** `conversationFor` with the caller's rating overlaid: what the poll of one conversation answers. */
export async function ratedConversationFor(
  deps: Pick<ChatDeps, 'cache' | 'contacts'>,
  ratings: Ratings,
  userId: string,
  conversationId: string,
): Promise<{ record: { readonly etag: string; readonly json: string }; freshness: Freshness }> {
  const [{ record, freshness }, rated] = await Promise.all([
    conversationFor(deps, userId, conversationId),
    ratings.of(userId),
  ]);
  return { record: withRating(record, rated.get(conversationId)), freshness };
}

/** A tagged answer: the poll's ETag and the JSON it stands for. */
export interface TaggedJson {
  readonly etag: string;
  readonly json: string;
}

const tagged = (body: unknown): TaggedJson => {
  const json = JSON.stringify(body);
  return { etag: weakEtag(json), json };
};
const EMPTY_LIST = tagged({ items: [] });

/**
 * The last answer of each user's list, under the identities of what it was made of (the read markers'
 * map, which is the user's own, holds it): while none of them changed, a poll reuses the tag and JSON
 * instead of building, serialising and hashing the list again.
 */
const listAnswers = new WeakMap<
  object,
  { readonly inputs: readonly unknown[]; readonly answer: TaggedJson }
>();

/** The user's list with `rated` and `rating` overlaid, as on one conversation (decision 029), tagged. */
export async function ratedConversationListOf(
  deps: Pick<ChatDeps, 'cache' | 'contacts' | 'reads'>,
  ratings: Ratings,
  userId: string,
): Promise<{ record: TaggedJson; freshness: Freshness }> {
  const [inputs, rated] = await Promise.all([listInputs(deps, userId), ratings.of(userId)]);
  if (inputs === null) return { record: EMPTY_LIST, freshness: { stale: false, fetchedAt: Date.now() } };
  const identities = [inputs.list.value, rated, ...inputs.reads.map((read) => read.value)];
  const known = listAnswers.get(inputs.markers);
  const same =
    known !== undefined &&
    known.inputs.length === identities.length &&
    known.inputs.every((input, i) => input === identities[i]);
  if (same) return { record: known.answer, freshness: freshnessOfAll([inputs.list, ...inputs.reads]) };
  const items = summariesOf(inputs).map((item) => {
    const rating = rated.get(item.id);
    return rating === undefined ? item : { ...item, rated: true, rating };
  });
  const answer = tagged({ items });
  listAnswers.set(inputs.markers, { inputs: identities, answer });
  return { record: answer, freshness: freshnessOfAll([inputs.list, ...inputs.reads]) };
}

export interface NewMessage {
  readonly conversationId?: string | undefined;
  readonly text: string;
  readonly attachmentIds?: readonly string[] | undefined;
  readonly reasonId?: string | undefined;
  /** What the device told about itself: written on the contact when it changed (decision 047). */
  readonly telemetry?: DeviceTelemetry | undefined;
}

export interface SentMessage {
  readonly conversationId: string;
  readonly messageId?: string;
  readonly created: boolean;
}

/**
 * Opens a request or replies in one, as the user, at Intercom. Everything that can be refused here (a
 * reason, files, ownership) is checked before Intercom is written to; Intercom's own refusal or outage
 * surfaces as the API's problem (503 with Retry-After), so nothing is dropped silently.
 */
export async function sendMessage(deps: ChatDeps, userId: string, input: NewMessage): Promise<SentMessage> {
  const sent = await deliverMessage(deps, userId, input);
  // After the message, so that a first request has its contact; best effort, and only when it changed.
  if (input.telemetry !== undefined) await reportContactTelemetry(deps, userId, input.telemetry);
  return sent;
}

async function deliverMessage(deps: ChatDeps, userId: string, input: NewMessage): Promise<SentMessage> {
  const reason = await reasonTitle(deps.pool, input);
  const attachmentUrls = await attachmentLinks(deps, userId, input.attachmentIds ?? []);
  const body = userTextToHtml(input.text);
  if (input.conversationId !== undefined) {
    const { conversationId } = input;
    // Ownership first, through the cache: a reply into someone else's conversation never reaches Intercom.
    const { record } = await conversationFor(deps, userId, conversationId);
    const contactId = await deps.contacts.contactFor(userId);
    const answer = await deps.intercom.replyAsUser({ conversationId, contactId, body, attachmentUrls });
    await deps.cache.invalidate({ contactIds: [contactId, ...record.ownerIds], conversationId });
    const messageId = answer.conversation_parts.conversation_parts.at(-1)?.id;
    return { conversationId, created: false, ...(messageId === undefined ? {} : { messageId }) };
  }
  const open = async (contactId: string) => ({
    contactId,
    created: await deps.intercom.createConversation({ contactId, body, attachmentUrls }),
  });
  const known = await deps.contacts.contactFor(userId);
  const { contactId, created } = await open(known).catch(async (error: unknown) => {
    // Intercom answers 404 for a sender it does not know: the contact went away under the mapping.
    if (!isProviderError(error, 'not_found')) throw error;
    return open(await deps.contacts.renew(userId, known));
  });
  await deps.cache.invalidate({ contactIds: [contactId], conversationId: created.conversation_id });
  if (reason !== null) await tagWithReason(deps, created.conversation_id, reason);
  return { conversationId: created.conversation_id, messageId: created.id, created: true };
}

async function reasonTitle(pool: DatabasePool, input: NewMessage): Promise<string | null> {
  if (input.reasonId === undefined) return null;
  const reason = (await activeReasons(pool)).support.find((r) => r.id === input.reasonId);
  if (!reason) throw notFound('Support reason not found');
  return reason.title;
}

/** Signed public links to the user's own uploads, which Intercom fetches when it stores the message. */
async function attachmentLinks(deps: ChatDeps, userId: string, ids: readonly string[]): Promise<string[]> {
  const links: string[] = [];
  for (const id of new Set(ids)) {
    const file = await findFile(deps.pool, id);
    if (!file) throw notFound('Attachment not found');
    if (file.ownerId !== userId) throw forbidden('This attachment belongs to another user');
    links.push(signedFileUrl(deps.files.publicBaseUrl(), deps.files.secret, file, deps.files.ttlSeconds));
  }
  return links;
}

/** Best effort: the request is open whatever happens to its tag. */
async function tagWithReason(deps: ChatDeps, conversationId: string, title: string): Promise<void> {
  try {
    const [admin, tag] = await Promise.all([deps.intercom.me(), deps.intercom.createTag(title)]);
    await deps.intercom.tagConversation(conversationId, tag.id, admin.id);
  } catch (error) {
    deps.logger.warn({ err: error, conversationId }, 'support request opened but not tagged with its reason');
  }
}

/**
 * Moves the user's read marker to `lastReadMessageId` (or to the newest message), and tells Intercom the
 * conversation was read; Intercom's flag is a courtesy to the team, so its outage does not fail the call.
 */
export async function markRead(
  deps: ChatDeps,
  userId: string,
  conversationId: string,
  lastReadMessageId: string | undefined,
): Promise<void> {
  const { record } = await conversationFor(deps, userId, conversationId);
  const { messages } = record.view;
  const message =
    lastReadMessageId === undefined ? messages.at(-1) : messages.find((m) => m.id === lastReadMessageId);
  if (!message) throw notFound('Message not found in this conversation');
  await deps.reads.markConversationRead(userId, conversationId, message);
  try {
    await deps.intercom.markConversationRead(conversationId);
  } catch (error) {
    deps.logger.warn({ err: error, conversationId }, 'read marker moved; Intercom read flag not set');
  }
}
