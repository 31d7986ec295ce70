import { z } from 'zod';

/** The spec's push categories; each maps to one notification setting (chatMessages, ticketUpdates, systemNotices). */
export const pushCategories = ['chat', 'ticket', 'system'] as const;
export type PushCategory = (typeof pushCategories)[number];

/**
 * A push the service wants a user to get. It names what to open, never what was said: message bodies stay
 * at the provider and out of push logs. `sourceId` (the webhook notification id, with a suffix when one
 * notification asks for several pushes) makes a dispatch idempotent: a second request with it sends nothing.
 */
export const pushRequestSchema = z.object({
  sourceId: z.string().min(1),
  userId: z.string().min(1),
  category: z.enum(pushCategories),
  conversationId: z.string().optional(),
  ticketId: z.string().optional(),
  /** A resolved ticket: the client shows the CSAT prompt when it opens from the push. */
  csat: z.boolean().optional(),
});
export type PushRequest = z.infer<typeof pushRequestSchema>;

/** Sends (or, while no push service is configured, records) pushes. */
export interface PushDispatcher {
  dispatch(request: PushRequest): Promise<void>;
}
