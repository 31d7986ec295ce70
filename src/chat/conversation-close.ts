import type { IntercomClient } from '../integrations/intercom/client.ts';
import type { Conversation } from '../integrations/intercom/schemas.ts';
import { recordConversationDuration } from './conversation-durations.ts';
import { type ChatDeps, conversationFor } from './conversations.ts';
import { closeDuration } from './notifications.ts';

/** The admin the app acts as at Intercom (the token's own), asked once per client and again after a failure. */
const adminIds = new WeakMap<object, Promise<string>>();

function appAdminId(intercom: Pick<IntercomClient, 'me'>): Promise<string> {
  const known = adminIds.get(intercom);
  if (known) return known;
  const asked = intercom.me().then((admin) => admin.id);
  adminIds.set(intercom, asked);
  asked.catch(() => adminIds.delete(intercom));
  return asked;
}

/**
 * The user ends their request (API.md `POST /api/conversations/:id/close`). Ownership is checked through the
 * read cache first, as for every support route. Intercom closes it as the app's admin, on the user's behalf,
 * as a teammate would: the team's inbox shows it closed and Intercom sends `conversation.admin.closed`.
 * A conversation the cache knows closed is left alone, with no write to Intercom. Answers whether it closed.
 */
export async function closeConversation(
  deps: ChatDeps,
  userId: string,
  conversationId: string,
): Promise<boolean> {
  const { record } = await conversationFor(deps, userId, conversationId);
  if (record.view.state === 'closed') return false;
  const closed = await deps.intercom.closeConversation(conversationId, await appAdminId(deps.intercom));
  const contactIds = [...new Set([...record.ownerIds, ...closed.contacts])];
  await deps.cache.invalidate({ contactIds, conversationId });
  await recordClose(deps, closed);
  return true;
}

/**
 * The close's duration, measured as the webhook that follows measures it (the same close part, so the same
 * `closed_at`): between them the close is recorded once, and it counts even if the webhook is late or lost.
 * Best effort: Intercom has closed the conversation already, and the webhook is the second chance. The row's
 * `notification_id` names the close part, since no notification is involved.
 */
async function recordClose(deps: Pick<ChatDeps, 'pool' | 'logger'>, closed: Conversation): Promise<void> {
  const part = closed.conversation_parts.conversation_parts.filter((p) => p.part_type === 'close').at(-1);
  if (!part) return;
  const conversation = { id: closed.id, createdAt: closed.created_at };
  try {
    await recordConversationDuration(
      deps.pool,
      closeDuration(conversation, part.created_at, `user-close:${part.id}`),
    );
  } catch (error) {
    deps.logger.warn(
      { err: error, conversationId: closed.id },
      'closed; the duration is left to the webhook',
    );
  }
}
