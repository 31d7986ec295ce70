import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemSchema } from '../../problem.ts';
import { lineText } from '../../../lib/text-rules.ts';

// What every admin route has in common.

/** The app as an admin route plugin gets it, for route definitions kept in files of their own. */
export type AdminApp = Parameters<FastifyPluginAsyncZod>[0];

export const adminSecurity = [{ adminToken: [] }];

/** The refusals every signed-in admin route can give. */
export const adminErrors = { 401: problemSchema, 403: problemSchema } as const;

export const idParams = z.object({ id: z.uuid() });

/** A host user's id, as the admin routes about client users take it. */
export const userIdSchema = lineText({ max: 256 });

/** A display name or title: trimmed, 1 to `max` characters, no control characters. */
export const label = (max: number) => lineText({ max });
