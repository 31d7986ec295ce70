import { renderConversation, renderTicket } from './render.ts';
import type { Conversation, Part, SandboxState, Ticket } from './state.ts';
import type { Notification, Webhooks } from './webhooks.ts';

/** What routes and operator actions share: the records and the webhook sender. */
export interface SandboxContext {
  readonly state: SandboxState;
  readonly webhooks: Webhooks;
}

/** A conversation webhook: the conversation with the parts the event added, bodies in plain text (2.15). */
export function notifyConversation(
  { state, webhooks }: SandboxContext,
  topic: string,
  conversation: Conversation,
  parts: readonly Part[],
): Promise<Notification> {
  return webhooks.notify(topic, renderConversation(state, conversation, parts, { plainText: true }));
}

export function notifyTicket(
  { state, webhooks }: SandboxContext,
  topic: string,
  ticket: Ticket,
): Promise<Notification> {
  return webhooks.notify(topic, renderTicket(state, ticket, { plainText: true }));
}
