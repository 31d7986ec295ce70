import { randomBytes } from 'node:crypto';

/**
 * Everything the sandbox remembers, in memory (and, when given a file, kept there too: persistence.ts);
 * times are unix seconds, as Intercom sends them. Every function that changes a record calls `changed()`.
 */
export interface SandboxState {
  readonly appIdCode: string;
  /** The admin the access token belongs to (`GET /me`). */
  readonly me: Admin;
  /** The teammate who answers in the inbox: operator actions are written as this admin by default. */
  readonly operator: Admin;
  readonly admins: Map<string, Admin>;
  readonly contacts: Map<string, Contact>;
  readonly conversations: Map<string, Conversation>;
  readonly tickets: Map<string, Ticket>;
  readonly tags: Map<string, Tag>;
  readonly notes: Map<string, Note>;
  /** How long a new contact stays out of `POST /contacts/search` (Intercom's index lags). */
  searchLagMs: number;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** Numeric string ids, increasing, shared by every kind of record but contacts. */
  readonly nextId: () => string;
  readonly nextTicketNumber: () => string;
  /** The last id and ticket number handed out, so that a restarted sandbox continues after them. */
  readonly counters: () => Counters;
  /** Says a record changed: a sandbox kept in a file saves it soon after. */
  readonly changed: () => void;
}

export interface Counters {
  readonly lastId: number;
  readonly lastTicketNumber: number;
}

/** The records a sandbox starts from: a saved sandbox's (persistence.ts), or none. */
export interface Records {
  readonly counters: Counters;
  readonly contacts: readonly Contact[];
  readonly conversations: readonly Conversation[];
  readonly tickets: readonly Ticket[];
  readonly tags: readonly Tag[];
  readonly notes: readonly Note[];
}

export interface Admin {
  readonly id: string;
  readonly name: string;
  readonly email: string;
}

export interface Author {
  readonly type: 'admin' | 'user' | 'bot';
  readonly id: string;
  readonly name: string | null;
  readonly email?: string;
}

export interface Attachment {
  readonly name: string;
  readonly url: string;
  readonly contentType: string;
  readonly filesize: number;
  readonly width?: number;
  readonly height?: number;
}

export interface AppliedTag {
  readonly tagId: string;
  readonly appliedAt: number;
  readonly appliedBy: { readonly type: 'admin' | 'contact'; readonly id: string };
}

export interface Contact {
  readonly id: string;
  readonly externalId: string | null;
  readonly role: 'user';
  readonly email: string | null;
  readonly name: string | null;
  readonly createdAt: number;
  updatedAt: number;
  archived: boolean;
  readonly tags: AppliedTag[];
  readonly noteIds: string[];
  /** What `PUT /contacts/{id}` set under `custom_attributes` (a null there removes the key). */
  customAttributes: Readonly<Record<string, CustomAttribute>>;
  /** When the contact shows up in search (milliseconds). */
  readonly searchableFrom: number;
}

/** Intercom's custom attributes hold strings, numbers and booleans. */
export type CustomAttribute = string | number | boolean;

export interface Note {
  readonly id: string;
  readonly contactId: string;
  readonly adminId: string;
  readonly body: string;
  readonly createdAt: number;
}

export type ConversationState = 'open' | 'closed' | 'snoozed';

/** One entry of a conversation's or ticket's history. */
export interface PartBase {
  readonly id: string;
  /** comment, note, close, open, snoozed, unsnoozed, ticket_state_updated_by_admin, ... as Intercom names them. */
  readonly partType: string;
  /** HTML, or null for parts that only change the state. */
  readonly body: string | null;
  readonly createdAt: number;
  readonly author: Author;
  readonly attachments: readonly Attachment[];
}

export interface Part extends PartBase {
  /** The conversation's state once this part was added. */
  readonly state: ConversationState;
}

export interface Conversation {
  readonly id: string;
  readonly contactId: string;
  readonly createdAt: number;
  updatedAt: number;
  state: ConversationState;
  snoozedUntil: number | null;
  waitingSince: number | null;
  read: boolean;
  adminAssigneeId: number | null;
  readonly tags: AppliedTag[];
  /** The first message. */
  readonly source: Omit<Part, 'partType' | 'state'>;
  readonly parts: Part[];
}

export type TicketCategory = 'submitted' | 'in_progress' | 'waiting_on_customer' | 'resolved';

export interface TicketPart extends PartBase {
  readonly ticketState?: TicketCategory;
  readonly previousTicketState?: TicketCategory;
}

export interface Ticket {
  readonly id: string;
  /** The number people see (`ticket_id`), apart from the record id. */
  readonly ticketNumber: string;
  readonly contactId: string;
  readonly title: string;
  readonly description: string | null;
  category: TicketCategory;
  externalLabel: string;
  readonly createdAt: number;
  updatedAt: number;
  readonly parts: TicketPart[];
  readonly tags: AppliedTag[];
}

export interface Tag {
  readonly id: string;
  readonly name: string;
}

export interface StateOptions {
  readonly appIdCode: string;
  readonly searchLagMs: number;
  readonly now: () => number;
  /** The records to start with (none by default). */
  readonly records?: Records | undefined;
  readonly onChange?: (() => void) | undefined;
}

const byId = <T extends { readonly id: string }>(records: readonly T[] = []): Map<string, T> =>
  new Map(records.map((record) => [record.id, record]));

export function createState({ appIdCode, searchLagMs, now, records, onChange }: StateOptions): SandboxState {
  let lastId = records?.counters.lastId ?? 1000;
  let lastTicketNumber = records?.counters.lastTicketNumber ?? 0;
  const me: Admin = { id: '991267001', name: 'Sandbox API', email: 'api@sandbox.invalid' };
  const operator: Admin = { id: '991267002', name: 'Sandbox Operator', email: 'operator@sandbox.invalid' };
  return {
    appIdCode,
    me,
    operator,
    admins: new Map([me, operator].map((admin) => [admin.id, admin])),
    contacts: byId(records?.contacts),
    conversations: byId(records?.conversations),
    tickets: byId(records?.tickets),
    tags: byId(records?.tags),
    notes: byId(records?.notes),
    searchLagMs,
    now,
    nextId: () => String(++lastId),
    nextTicketNumber: () => String(++lastTicketNumber),
    counters: () => ({ lastId, lastTicketNumber }),
    changed: onChange ?? (() => undefined),
  };
}

/** Intercom's contact ids are 24 hex digits (they look like Mongo ObjectIds). */
export function newContactId(): string {
  return randomBytes(12).toString('hex');
}

export function seconds(state: Pick<SandboxState, 'now'>): number {
  return Math.floor(state.now() / 1000);
}
