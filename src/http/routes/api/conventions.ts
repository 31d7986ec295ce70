import { z } from 'zod';
import { problemSchema } from '../../problem.ts';

// What the client routes (/api) have in common.

export const sessionSecurity = [{ sessionJwt: [] }];

/** The refusals most client routes can give: bad input, no session, nothing there, too many requests. */
export const clientErrors = {
  400: problemSchema,
  401: problemSchema,
  404: problemSchema,
  429: problemSchema,
};

export const pollHeaders = z.object({ 'if-none-match': z.string().max(200).optional() });
export const notModified = z.null().describe('Not modified');
export const idempotencyKeyHeader = z.object({ 'idempotency-key': z.string().optional() });

/** `/channel/:id` and `/channel/:id/posts/:postId`. */
export const channelParams = z.object({ id: z.uuid() });
export const postParams = channelParams.extend({ postId: z.uuid() });
export const commentParams = postParams.extend({ commentId: z.uuid() });
