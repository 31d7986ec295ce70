import { z } from 'zod';
import { deleteContact, setArchived } from './contacts.ts';
import { notifyConversation, notifyTicket, type SandboxContext } from './context.ts';
import {
  addAdminPart,
  assignConversation,
  changeState,
  requireConversation,
  stateChangeTopic,
  type StateChange,
} from './conversations.ts';
import type { Fault, Faults } from './faults.ts';
import type { Attachment } from './state.ts';
import { changeTicketState, createTicket, noteOnTicket, replyToTicket, requireTicket } from './tickets.ts';
import type { Delivery, Notification, ReleaseOrder } from './webhooks.ts';

// What a teammate does in Intercom's inbox, and the knobs tests turn. Each action changes the records,
// then sends the webhook Intercom would send and resolves after its first delivery attempt.

const attachment = z.object({
  name: z.string().min(1),
  url: z.url(),
  contentType: z.string().min(1),
  filesize: z.number().int().min(0).default(0),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
});
const asAdmin = { adminId: z.string().optional() };

export const operatorInputs = {
  reply: z.object({
    body: z.string().min(1),
    attachments: z.array(attachment).max(10).optional(),
    ...asAdmin,
  }),
  note: z.object({ body: z.string().min(1), ...asAdmin }),
  close: z.object({ body: z.string().optional(), ...asAdmin }),
  snooze: z.object({ until: z.number().int(), ...asAdmin }),
  open: z.object(asAdmin),
  createTicket: z.object({
    contactId: z.string().min(1),
    title: z.string().min(1),
    description: z.string().optional(),
    ...asAdmin,
  }),
  setTicketState: z.object({
    state: z.enum(['submitted', 'in_progress', 'waiting_on_customer', 'resolved']),
    externalLabel: z.string().optional(),
    ...asAdmin,
  }),
  resolveTicket: z.object(asAdmin),
  fault: z.object({
    status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
    count: z.number().int().min(1).optional(),
    forMs: z.number().int().min(1).optional(),
    method: z.string().optional(),
    pathPrefix: z.string().optional(),
  }),
};
type Input<K extends keyof typeof operatorInputs> = z.input<(typeof operatorInputs)[K]>;

export interface ActionResult {
  readonly notificationId: string;
  /** The part the action added, or the ticket it created. */
  readonly id: string;
}

export interface SandboxOperator {
  reply(conversationId: string, input: Input<'reply'>): Promise<ActionResult>;
  note(conversationId: string, input: Input<'note'>): Promise<ActionResult>;
  close(conversationId: string, input?: Input<'close'>): Promise<ActionResult>;
  snooze(conversationId: string, input: Input<'snooze'>): Promise<ActionResult>;
  /** Reopens a closed conversation, or unsnoozes a snoozed one. */
  open(conversationId: string, input?: Input<'open'>): Promise<ActionResult>;
  /** Assigns the conversation to the teammate: a part the user never sees. */
  assign(conversationId: string, input?: Input<'open'>): Promise<ActionResult>;
  createTicket(input: Input<'createTicket'>): Promise<ActionResult>;
  setTicketState(ticketId: string, input: Input<'setTicketState'>): Promise<ActionResult>;
  /** Moves the ticket to resolved: `ticket.state.updated`, then `ticket.resolved`. */
  resolveTicket(ticketId: string, input?: Input<'resolveTicket'>): Promise<ActionResult>;
  replyToTicket(ticketId: string, input: Input<'reply'>): Promise<ActionResult>;
  noteOnTicket(ticketId: string, input: Input<'note'>): Promise<ActionResult>;
  archiveContact(contactId: string): void;
  /** Development: the contact and its conversations and tickets are gone, as if deleted in Intercom (no webhook). */
  deleteContact(contactId: string): void;
  /** How long new contacts stay out of search from now on. */
  setSearchLag(ms: number): void;
  failNext(count: number, fault: Fault): void;
  failFor(ms: number, fault: Fault): void;
  clearFaults(): void;
  redeliver(notificationId: string): Promise<Delivery>;
  holdWebhooks(): void;
  releaseWebhooks(order?: ReleaseOrder): Promise<void>;
  /** Resolves once every webhook attempt and retry has finished. */
  webhooksIdle(): Promise<void>;
  readonly notifications: readonly Notification[];
  readonly deliveries: readonly Delivery[];
}

function attachments(input: Input<'reply'>): Attachment[] {
  return (input.attachments ?? []).map((item) => attachment.parse(item));
}

export function createOperator(context: SandboxContext, faults: Faults): SandboxOperator {
  const { state, webhooks } = context;
  const admin = (input: { adminId?: string | undefined } | undefined) => input?.adminId ?? state.operator.id;
  const done = (notification: Notification, id: string): ActionResult => ({
    notificationId: notification.id,
    id,
  });

  async function conversationPart(
    conversationId: string,
    topic: string,
    add: () => { readonly id: string },
  ): Promise<ActionResult> {
    const part = add();
    const conversation = requireConversation(state, conversationId);
    const added = conversation.parts.filter((candidate) => candidate.id === part.id);
    return done(await notifyConversation(context, topic, conversation, added), part.id);
  }

  function stateChange(conversationId: string, adminId: string, change: StateChange) {
    const topic = stateChangeTopic(requireConversation(state, conversationId).state, change.to);
    return conversationPart(conversationId, topic, () => changeState(state, conversationId, adminId, change));
  }

  return {
    reply: (id, input) =>
      conversationPart(id, 'conversation.admin.replied', () =>
        addAdminPart(state, id, {
          partType: 'comment',
          adminId: admin(input),
          body: input.body,
          attachments: attachments(input),
        }),
      ),
    note: (id, input) =>
      conversationPart(id, 'conversation.admin.noted', () =>
        addAdminPart(state, id, {
          partType: 'note',
          adminId: admin(input),
          body: input.body,
          attachments: [],
        }),
      ),
    close: (id, input) => stateChange(id, admin(input), { to: 'closed', body: input?.body }),
    snooze: (id, input) => stateChange(id, admin(input), { to: 'snoozed', until: input.until }),
    open: (id, input) => stateChange(id, admin(input), { to: 'open' }),
    assign: (id, input) =>
      conversationPart(id, 'conversation.admin.assigned', () => assignConversation(state, id, admin(input))),
    async createTicket(input) {
      const ticket = createTicket(state, { ...input, adminId: admin(input) });
      return done(await notifyTicket(context, 'ticket.created', ticket), ticket.id);
    },
    async setTicketState(id, input) {
      const part = changeTicketState(state, id, admin(input), input.state, input.externalLabel);
      return done(await notifyTicket(context, 'ticket.state.updated', requireTicket(state, id)), part.id);
    },
    async resolveTicket(id, input) {
      const part = changeTicketState(state, id, admin(input), 'resolved');
      const ticket = requireTicket(state, id);
      await notifyTicket(context, 'ticket.state.updated', ticket);
      return done(await notifyTicket(context, 'ticket.resolved', ticket), part.id);
    },
    async replyToTicket(id, input) {
      const part = replyToTicket(state, id, admin(input), input.body, attachments(input));
      return done(await notifyTicket(context, 'ticket.admin.replied', requireTicket(state, id)), part.id);
    },
    async noteOnTicket(id, input) {
      const part = noteOnTicket(state, id, admin(input), input.body);
      return done(await notifyTicket(context, 'ticket.note.created', requireTicket(state, id)), part.id);
    },
    archiveContact(contactId) {
      setArchived(state, contactId, true);
    },
    deleteContact(contactId) {
      deleteContact(state, contactId);
    },
    setSearchLag(ms) {
      state.searchLagMs = ms;
    },
    failNext(count, fault) {
      faults.failNext(count, fault);
    },
    failFor(ms, fault) {
      faults.failFor(ms, fault);
    },
    clearFaults() {
      faults.clear();
    },
    redeliver: (id) => webhooks.redeliver(id),
    holdWebhooks() {
      webhooks.hold();
    },
    releaseWebhooks: (order) => webhooks.release(order),
    webhooksIdle: () => webhooks.idle(),
    get notifications() {
      return webhooks.notifications;
    },
    get deliveries() {
      return webhooks.deliveries;
    },
  };
}
