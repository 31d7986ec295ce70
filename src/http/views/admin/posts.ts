import { z } from 'zod';
import { buttonSchema, postStatusSchema } from '../../../events/posts.ts';

export const adminPostSchema = z
  .object({
    id: z.uuid(),
    channelId: z.uuid(),
    status: postStatusSchema,
    text: z.string(),
    commentsEnabled: z.boolean(),
    publishAt: z.iso.datetime().nullable(),
    notify: z.boolean(),
    publishedAt: z.iso.datetime().nullable(),
    editedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    viewCount: z.number().int(),
    commentCount: z.number().int(),
    buttons: z.array(buttonSchema),
    attachments: z.array(
      z.object({
        id: z.uuid(),
        kind: z.enum(['image', 'video', 'file']),
        contentType: z.string(),
        size: z.number().int(),
        width: z.number().int().nullable(),
        height: z.number().int().nullable(),
        durationMs: z.number().int().nullable(),
      }),
    ),
  })
  .meta({ id: 'AdminPost' });
