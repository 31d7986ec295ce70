import { z } from 'zod';

export const reactionsSchema = z
  .object({ counts: z.record(z.string(), z.number().int()), mine: z.array(z.string()) })
  .meta({ id: 'Reactions' });
export const postSchema = z
  .object({
    id: z.uuid(),
    channelId: z.uuid(),
    text: z.string(),
    publishedAt: z.iso.datetime(),
    editedAt: z.iso.datetime().optional(),
    attachments: z.array(
      z.object({
        id: z.uuid(),
        kind: z.enum(['image', 'video', 'file']),
        url: z.string(),
        contentType: z.string(),
        size: z.number().int(),
        width: z.number().int().optional(),
        height: z.number().int().optional(),
        durationMs: z.number().int().optional(),
      }),
    ),
    buttons: z.array(z.object({ id: z.uuid(), label: z.string(), url: z.string() })),
    reactions: reactionsSchema,
    viewCount: z.number().int(),
    commentCount: z.number().int(),
    commentsEnabled: z.boolean(),
  })
  .meta({ id: 'Post' });
