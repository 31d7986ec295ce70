import { z } from 'zod';
import { problemSchema } from '../../problem.ts';

// What the support chat's routes (conversations, tickets) have in common.

/** Intercom's ids: digits in practice, kept to a safe alphabet so a path can never be smuggled. */
export const providerId = z.string().regex(/^[\w-]{1,64}$/, 'not a support id');
export const supportTags = ['support'];
/** Every support route may meet Intercom's refusal or outage (503 with Retry-After). */
export const supportErrors = {
  400: problemSchema,
  401: problemSchema,
  403: problemSchema,
  404: problemSchema,
  429: problemSchema,
  503: problemSchema,
};
