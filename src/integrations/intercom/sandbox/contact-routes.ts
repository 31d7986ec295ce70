import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  addContactNote,
  createContact,
  createTag,
  deleteContact,
  findByExternalId,
  searchableContacts,
  setArchived,
  tagContact,
  updateCustomAttributes,
} from './contacts.ts';
import type { SandboxContext } from './context.ts';
import { invalid, parse } from './errors.ts';
import { renderContact, renderContactReference, renderMe, renderNote, renderTag } from './render.ts';
import { matches, paginate, searchRequest, type Fields } from './search.ts';
import type { Contact } from './state.ts';

const idParams = z.object({ id: z.string().min(1) });
/** Intercom's examples send admin ids as numbers as well as strings. */
export const adminId = z.union([z.string().min(1), z.number().int()]).transform(String);

const newContact = z.object({
  role: z.enum(['user', 'lead']).optional(),
  external_id: z.string().min(1).optional(),
  email: z.string().min(1).optional(),
  name: z.string().optional(),
});

/** Intercom's update takes more fields (name, email, ...); the sandbox keeps custom attributes only. */
const contactUpdate = z.looseObject({
  custom_attributes: z
    .record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .nullish(),
});

const contactFields: Fields<Contact> = {
  id: (contact) => [contact.id],
  external_id: (contact) => [contact.externalId],
  email: (contact) => [contact.email],
  role: (contact) => [contact.role],
};

export function contactRoutes(app: FastifyInstance, { state }: SandboxContext): void {
  app.get('/me', async () => renderMe(state));

  app.post('/tags', async (request) => {
    const { name } = parse(z.object({ name: z.string().min(1) }), request.body);
    return renderTag(createTag(state, name));
  });

  app.post('/contacts', async (request) => {
    const body = parse(newContact, request.body);
    if (body.role === 'lead') throw invalid('The sandbox holds users only');
    if (body.external_id === undefined && body.email === undefined) {
      throw invalid('Either external_id or email is required');
    }
    return renderContact(
      createContact(state, { externalId: body.external_id, email: body.email, name: body.name }),
    );
  });

  app.get('/contacts/find_by_external_id/:externalId', async (request) => {
    const { externalId } = parse(z.object({ externalId: z.string().min(1) }), request.params);
    return renderContact(findByExternalId(state, externalId));
  });

  app.post('/contacts/search', async (request) => {
    const search = parse(searchRequest, request.body);
    const found = searchableContacts(state).filter((contact) =>
      matches(contact, search.query, contactFields),
    );
    const page = paginate(found, search);
    return {
      type: 'list',
      data: page.items.map(renderContact),
      total_count: page.totalCount,
      pages: page.pages,
    };
  });

  app.put('/contacts/:id', async (request) => {
    const { id } = parse(idParams, request.params);
    const body = parse(contactUpdate, request.body);
    return renderContact(updateCustomAttributes(state, id, body.custom_attributes ?? {}));
  });

  app.post('/contacts/:id/archive', async (request) => {
    const contact = setArchived(state, parse(idParams, request.params).id, true);
    return { ...renderContactReference(contact), archived: true };
  });

  app.post('/contacts/:id/unarchive', async (request) => {
    const contact = setArchived(state, parse(idParams, request.params).id, false);
    return { ...renderContactReference(contact), archived: false };
  });

  app.delete('/contacts/:id', async (request) => {
    const contact = deleteContact(state, parse(idParams, request.params).id);
    return { ...renderContactReference(contact), deleted: true };
  });

  app.post('/contacts/:id/tags', async (request) => {
    const { id } = parse(idParams, request.params);
    const body = parse(z.object({ id: z.string().min(1) }), request.body);
    const { tag, applied } = tagContact(state, id, body.id);
    return renderTag(tag, applied);
  });

  app.post('/contacts/:id/notes', async (request) => {
    const { id } = parse(idParams, request.params);
    const body = parse(z.object({ body: z.string().min(1), admin_id: adminId.optional() }), request.body);
    return renderNote(state, addContactNote(state, id, body.body, body.admin_id ?? state.me.id));
  });
}
