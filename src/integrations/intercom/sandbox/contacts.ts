import { IntercomError, notFound } from './errors.ts';
import { textToHtml } from './html.ts';
import {
  newContactId,
  seconds,
  type AppliedTag,
  type Author,
  type Contact,
  type CustomAttribute,
  type Note,
  type SandboxState,
  type Tag,
} from './state.ts';

export interface NewContact {
  readonly externalId?: string | undefined;
  readonly email?: string | undefined;
  readonly name?: string | undefined;
}

export function createContact(state: SandboxState, input: NewContact): Contact {
  const existing = [...state.contacts.values()].find(
    (contact) =>
      (input.externalId !== undefined && contact.externalId === input.externalId) ||
      (input.email !== undefined && contact.email === input.email),
  );
  if (existing) {
    // The id is only in the message: callers parse it out, so its wording is part of the contract.
    const prefix = existing.archived ? 'An archived contact' : 'A contact';
    throw new IntercomError(
      409,
      'conflict',
      `${prefix} matching those details already exists with id=${existing.id}`,
    );
  }
  const now = seconds(state);
  const contact: Contact = {
    id: newContactId(),
    externalId: input.externalId ?? null,
    role: 'user',
    email: input.email ?? null,
    name: input.name ?? null,
    createdAt: now,
    updatedAt: now,
    archived: false,
    tags: [],
    noteIds: [],
    customAttributes: {},
    searchableFrom: state.now() + state.searchLagMs,
  };
  state.contacts.set(contact.id, contact);
  state.changed();
  return contact;
}

/** A live contact; archived ones are gone from reads until unarchived, as in Intercom. */
export function requireContact(state: SandboxState, id: string): Contact {
  const contact = state.contacts.get(id);
  if (!contact || contact.archived) throw notFound('User Not Found');
  return contact;
}

export function findByExternalId(state: SandboxState, externalId: string): Contact {
  const contact = [...state.contacts.values()].find((candidate) => candidate.externalId === externalId);
  if (!contact || contact.archived) throw notFound('User Not Found');
  return contact;
}

/** What search sees: live contacts whose index entry has caught up. */
export function searchableContacts(state: SandboxState): Contact[] {
  const now = state.now();
  return [...state.contacts.values()].filter((contact) => !contact.archived && contact.searchableFrom <= now);
}

/**
 * `PUT /contacts/{id}` with `custom_attributes`: the keys given change, the others stay, and a null
 * removes one, as in Intercom.
 */
export function updateCustomAttributes(
  state: SandboxState,
  id: string,
  attributes: Readonly<Record<string, CustomAttribute | null>>,
): Contact {
  const contact = requireContact(state, id);
  const merged = { ...contact.customAttributes, ...attributes };
  contact.customAttributes = Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, CustomAttribute] => entry[1] !== null),
  );
  contact.updatedAt = seconds(state);
  state.changed();
  return contact;
}

export function setArchived(state: SandboxState, id: string, archived: boolean): Contact {
  const contact = state.contacts.get(id);
  if (!contact) throw notFound('User Not Found');
  contact.archived = archived;
  contact.updatedAt = seconds(state);
  state.changed();
  return contact;
}

/**
 * `DELETE /contacts/{id}`, archived or not. As in Intercom, the contact's conversations, tickets and notes go
 * with it; a second delete is a 404.
 */
export function deleteContact(state: SandboxState, id: string): Contact {
  const contact = state.contacts.get(id);
  if (!contact) throw notFound('User Not Found');
  state.contacts.delete(id);
  for (const records of [state.conversations, state.tickets, state.notes]) {
    for (const [key, record] of records) if (record.contactId === id) records.delete(key);
  }
  state.changed();
  return contact;
}

export function requireTag(state: SandboxState, id: string): Tag {
  const tag = state.tags.get(id);
  if (!tag) throw new IntercomError(404, 'tag_not_found', 'Tag not found');
  return tag;
}

/** `POST /tags` creates a tag, or answers the one that already has the name. */
export function createTag(state: SandboxState, name: string): Tag {
  const existing = [...state.tags.values()].find((tag) => tag.name === name);
  if (existing) return existing;
  const tag: Tag = { id: state.nextId(), name };
  state.tags.set(tag.id, tag);
  state.changed();
  return tag;
}

export function tagContact(
  state: SandboxState,
  contactId: string,
  tagId: string,
): { readonly tag: Tag; readonly applied: AppliedTag } {
  const contact = requireContact(state, contactId);
  const tag = requireTag(state, tagId);
  return { tag, applied: applyTag(state, contact.tags, tagId, state.me.id) };
}

/** Tagging twice keeps the first application. */
/** A tag applied to a record, and whether this call applied it (a second application keeps the first). */
export interface TagOutcome {
  readonly tag: Tag;
  readonly applied: AppliedTag;
  readonly added: boolean;
}

export function applyTag(
  state: SandboxState,
  tags: AppliedTag[],
  tagId: string,
  adminId: string,
): AppliedTag {
  const existing = tags.find((applied) => applied.tagId === tagId);
  if (existing) return existing;
  const applied: AppliedTag = { tagId, appliedAt: seconds(state), appliedBy: { type: 'admin', id: adminId } };
  tags.push(applied);
  state.changed();
  return applied;
}

export function addContactNote(state: SandboxState, contactId: string, body: string, adminId: string): Note {
  const contact = requireContact(state, contactId);
  adminAuthor(state, adminId);
  const note: Note = {
    id: state.nextId(),
    contactId,
    adminId,
    body: textToHtml(body),
    createdAt: seconds(state),
  };
  state.notes.set(note.id, note);
  contact.noteIds.push(note.id);
  state.changed();
  return note;
}

/** The author of what a teammate writes; an unknown admin id is refused as Intercom does. */
export function adminAuthor(state: SandboxState, adminId: string): Author {
  const admin = state.admins.get(adminId);
  if (!admin) throw new IntercomError(404, 'admin_not_found', 'Admin not found');
  return { type: 'admin', id: admin.id, name: admin.name, email: admin.email };
}
