import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { adminId } from './contact-routes.ts';
import { requireContact, findByExternalId } from './contacts.ts';
import { notifyConversation, type SandboxContext } from './context.ts';
import {
  addAdminPart,
  addUserReply,
  attachmentsFromUrls,
  changeState,
  createConversation,
  markRead,
  requireConversation,
  stateChangeTopic,
  tagConversation,
  type StateChange,
} from './conversations.ts';
import { invalid, notFound, parse } from './errors.ts';
import { renderConversation, renderConversationListItem, renderTag } from './render.ts';
import { matches, paginate, searchRequest, type Fields } from './search.ts';
import type { Contact, Conversation, SandboxState } from './state.ts';

const idParams = z.object({ id: z.string().min(1) });
const attachmentUrls = z.array(z.url()).max(10).optional();

const newConversation = z.object({
  from: z.object({ type: z.enum(['user', 'lead', 'contact']), id: z.string().min(1) }),
  body: z.string().min(1),
  subject: z.string().optional(),
  attachment_urls: attachmentUrls,
});

const userReply = z.object({
  message_type: z.literal('comment'),
  type: z.literal('user'),
  intercom_user_id: z.string().optional(),
  user_id: z.string().optional(),
  email: z.string().optional(),
  body: z.string().min(1),
  attachment_urls: attachmentUrls,
});
const adminReply = z.object({
  message_type: z.enum(['comment', 'note']),
  type: z.literal('admin'),
  admin_id: adminId,
  body: z.string().min(1),
  attachment_urls: attachmentUrls,
});
const reply = z.discriminatedUnion('type', [userReply, adminReply]);

// `POST /conversations/{id}/parts` (manageConversation): close, snooze or open as a teammate. Assignment,
// the fourth kind Intercom takes, is left out: the service never assigns.
const manage = z.discriminatedUnion('message_type', [
  z.object({
    message_type: z.literal('close'),
    type: z.literal('admin'),
    admin_id: adminId,
    body: z.string().optional(),
  }),
  z.object({
    message_type: z.literal('snoozed'),
    type: z.literal('admin').optional(),
    admin_id: adminId,
    snoozed_until: z.number().int(),
  }),
  z.object({ message_type: z.literal('open'), type: z.literal('admin').optional(), admin_id: adminId }),
]);

function changeOf(body: z.infer<typeof manage>): StateChange {
  switch (body.message_type) {
    case 'close':
      return { to: 'closed', body: body.body };
    case 'snoozed':
      return { to: 'snoozed', until: body.snoozed_until };
    case 'open':
      return { to: 'open' };
  }
}

const conversationFields: Fields<Conversation> = {
  id: (conversation) => [conversation.id],
  contact_ids: (conversation) => [conversation.contactId],
  state: (conversation) => [conversation.state],
  open: (conversation) => [conversation.state !== 'closed'],
  updated_at: (conversation) => [conversation.updatedAt],
};

/** The user a reply speaks for: by Intercom contact id, by our external id, or by email. */
function replyingUser(state: SandboxState, body: z.infer<typeof userReply>): Contact {
  if (body.intercom_user_id) return requireContact(state, body.intercom_user_id);
  if (body.user_id) return findByExternalId(state, body.user_id);
  const byEmail = [...state.contacts.values()].find(
    (contact) => !contact.archived && contact.email === body.email,
  );
  if (body.email && byEmail) return byEmail;
  if (body.email) throw notFound('User Not Found');
  throw invalid('One of intercom_user_id, user_id or email is required');
}

export function conversationsRoutes(app: FastifyInstance, context: SandboxContext): void {
  const { state } = context;

  app.post('/conversations', async (request) => {
    const body = parse(newConversation, request.body);
    const created = createConversation(state, body.from.id, body.body, body.attachment_urls ?? []);
    void notifyConversation(context, 'conversation.user.created', created.conversation, []);
    return {
      type: 'user_message',
      id: created.messageId,
      created_at: created.conversation.createdAt,
      body: body.body,
      message_type: 'inapp',
      conversation_id: created.conversation.id,
    };
  });

  app.get('/conversations/:id', async (request) => {
    const conversation = requireConversation(state, parse(idParams, request.params).id);
    return renderConversation(state, conversation);
  });

  app.put('/conversations/:id', async (request) => {
    const { id } = parse(idParams, request.params);
    const body = parse(z.object({ read: z.boolean().optional() }), request.body);
    const conversation =
      body.read === undefined ? requireConversation(state, id) : markRead(state, id, body.read);
    return renderConversation(state, conversation);
  });

  // The answer holds the new part only, as Intercom's does.
  app.post('/conversations/:id/reply', async (request) => {
    const { id } = parse(idParams, request.params);
    const body = parse(reply, request.body);
    const urls = body.attachment_urls ?? [];
    if (body.type === 'user') {
      const part = addUserReply(state, id, replyingUser(state, body).id, body.body, urls);
      const conversation = requireConversation(state, id);
      void notifyConversation(context, 'conversation.user.replied', conversation, [part]);
      return renderConversation(state, conversation, [part]);
    }
    const input = { partType: body.message_type, adminId: body.admin_id, body: body.body };
    const part = addAdminPart(state, id, { ...input, attachments: attachmentsFromUrls(urls) });
    const conversation = requireConversation(state, id);
    const topic = body.message_type === 'note' ? 'conversation.admin.noted' : 'conversation.admin.replied';
    void notifyConversation(context, topic, conversation, [part]);
    return renderConversation(state, conversation, [part]);
  });

  // As a teammate's action in the inbox: the answer holds the new part only, and the webhook follows.
  app.post('/conversations/:id/parts', async (request) => {
    const { id } = parse(idParams, request.params);
    const body = parse(manage, request.body);
    const conversation = requireConversation(state, id);
    const change = changeOf(body);
    const topic = stateChangeTopic(conversation.state, change.to);
    const part = changeState(state, id, body.admin_id, change);
    void notifyConversation(context, topic, conversation, [part]);
    return renderConversation(state, conversation, [part]);
  });

  app.post('/conversations/search', async (request) => {
    const search = parse(searchRequest, request.body);
    const found = [...state.conversations.values()].filter((conversation) =>
      matches(conversation, search.query, conversationFields),
    );
    const page = paginate(found, search);
    const conversations = page.items.map((conversation) => renderConversationListItem(state, conversation));
    return { type: 'conversation.list', pages: page.pages, total_count: page.totalCount, conversations };
  });

  app.post('/conversations/:id/tags', async (request) => {
    const { id } = parse(idParams, request.params);
    const body = parse(z.object({ id: z.string().min(1), admin_id: adminId }), request.body);
    const { tag, applied, added } = tagConversation(state, id, body.id, body.admin_id);
    if (added) {
      void notifyConversation(context, 'conversation_part.tag.created', requireConversation(state, id), []);
    }
    return renderTag(tag, applied);
  });
}
