import { z } from 'zod';
import { commentStatusSchema, reportActionSchema, reportReasonSchema } from '../../../events/comments.ts';
import type { CommentRow } from '../../../queries/comments.ts';

export const adminCommentSchema = z
  .object({
    id: z.uuid(),
    channelId: z.uuid(),
    postId: z.uuid(),
    author: z.object({
      userId: z.string().nullable().describe('null once the author was erased'),
      isModerator: z.boolean(),
    }),
    text: z.string().nullable().describe('null once the author was erased (the picture goes too)'),
    image: z
      .object({
        contentType: z.string(),
        width: z.number().int().optional(),
        height: z.number().int().optional(),
      })
      .optional(),
    status: commentStatusSchema,
    openReports: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'AdminComment' });

export const reportSchema = z
  .object({
    id: z.uuid(),
    commentId: z.uuid(),
    channelId: z.uuid(),
    postId: z.uuid(),
    reporterId: z.string().nullable().describe('null once the reporter was erased (the note goes too)'),
    reason: reportReasonSchema,
    note: z.string().optional(),
    status: z.enum(['open', 'resolved']),
    commentStatus: commentStatusSchema,
    createdAt: z.iso.datetime(),
    action: reportActionSchema.optional(),
    resolvedAt: z.iso.datetime().optional(),
    resolvedBy: z.object({ type: z.string(), id: z.string() }).optional(),
  })
  .meta({ id: 'CommentReport' });

/** A comment as moderators see it in the panel: every status, with its open reports. */
export function adminCommentView(row: CommentRow & { readonly openReports: number }) {
  return {
    id: row.id,
    channelId: row.channelId,
    postId: row.postId,
    author: { userId: row.authorId, isModerator: row.authorIsModerator },
    text: row.text,
    // What the picture is, not where it is stored.
    ...(row.image
      ? {
          image: {
            contentType: row.image.contentType,
            ...(row.image.width === undefined ? {} : { width: row.image.width }),
            ...(row.image.height === undefined ? {} : { height: row.image.height }),
          },
        }
      : {}),
    status: row.status,
    openReports: row.openReports,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
