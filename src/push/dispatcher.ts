import { z } from 'zod';

export { pushCategories, type PushCategory } from './content.ts';

/**
 * A push the service wants one user to get, from the support inbox: an operator's reply (`chat`), a
 * ticket's reply or change (`ticket`). It names what to open, never what was said. `sourceId` (the
 * webhook notification id, with a suffix when one notification asks for several pushes) makes a dispatch
 * idempotent: a second request with it sends nothing.
 */
export const pushRequestSchema = z.object({
  sourceId: z.string().min(1),
  userId: z.string().min(1),
  category: z.enum(['chat', 'ticket']),
  conversationId: z.string().optional(),
  ticketId: z.string().optional(),
  /** A resolved ticket: the client shows the CSAT prompt when it opens from the push. */
  csat: z.boolean().optional(),
});
export type PushRequest = z.infer<typeof pushRequestSchema>;

/** Hands pushes to delivery (the durable queue), or records them while none is running. */
export interface PushDispatcher {
  dispatch(request: PushRequest): Promise<void>;
}
