import { z } from 'zod';
import type { Tombstone } from '../../../queries/comments-cache.ts';
import type { CommentRow } from '../../../queries/comments.ts';

export const commentSchema = z
  .object({
    id: z.uuid(),
    postId: z.uuid(),
    author: z.object({ userId: z.string(), displayName: z.string().optional(), isModerator: z.boolean() }),
    text: z.string(),
    image: z
      .object({ url: z.string(), width: z.number().int().optional(), height: z.number().int().optional() })
      .optional(),
    createdAt: z.iso.datetime(),
    status: z.enum(['visible', 'hidden', 'deleted']),
    mine: z.boolean(),
    erased: z
      .literal(true)
      .optional()
      .describe('erased with its author: empty text and author id, no image; absent otherwise'),
  })
  .meta({ id: 'Comment' });
export const tombstoneSchema = z
  .object({ id: z.uuid(), status: z.enum(['hidden', 'deleted']) })
  .meta({ id: 'CommentTombstone' });

/** What a comment's view is made from: a row of the read table, or a comment just posted. */
export type CommentViewSource = Pick<
  CommentRow,
  'id' | 'postId' | 'channelId' | 'authorId' | 'authorIsModerator' | 'text' | 'image' | 'createdAt' | 'status'
>;

/** The link a client loads a comment's picture from, with no session (signed: decision 033). */
export type CommentImageUrl = (comment: { readonly id: string; readonly storageKey: string }) => string;

/** A comment as API.md gives it to one reader. */
export function commentView(row: CommentViewSource, readerId: string, imageUrl: CommentImageUrl) {
  const { id, postId } = row;
  // Its text is gone with its author (decision 048): it keeps its place in the thread, and nothing else.
  const erased = row.text === null;
  const image = erased ? null : row.image;
  return {
    id,
    postId,
    author: { userId: erased ? '' : (row.authorId ?? ''), isModerator: !erased && row.authorIsModerator },
    text: row.text ?? '',
    ...(image
      ? {
          image: {
            url: imageUrl({ id, storageKey: image.storageKey }),
            ...(image.width === undefined ? {} : { width: image.width }),
            ...(image.height === undefined ? {} : { height: image.height }),
          },
        }
      : {}),
    createdAt: row.createdAt,
    status: row.status,
    mine: !erased && row.authorId === readerId,
    ...(erased ? { erased: true as const } : {}),
  };
}

export const isTombstone = (item: CommentRow | Tombstone): item is Tombstone => !('authorId' in item);
