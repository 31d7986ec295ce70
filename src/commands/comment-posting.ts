import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { type CommentCommand, commentDecider, handleComment } from './comments.ts';
import type { CommandContext } from './handler.ts';
import { recordRejection } from './moderation.ts';
import { checkComment, type SafetyKind } from '../content-safety/index.ts';
import type { CommentImage } from '../events/comments.ts';
import type { Position } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { imageDimensions } from '../files/image-dimensions.ts';
import type { UploadCaps } from '../files/inspect.ts';
import { storeUpload } from '../files/store-upload.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { CommentRow, PostingContextLookup } from '../queries/comments.ts';
import { notFound } from './errors.ts';
import type { SlowMode } from '../integrations/rate-limiters/slow-mode.ts';

export interface PostCommentDeps {
  readonly postingContext: PostingContextLookup;
  readonly store: EventStore;
  readonly storage: ObjectStorage;
  readonly caps: UploadCaps;
  readonly slowMode: SlowMode;
  /** Keys the hash a rejection records (see content-safety). */
  readonly hashKey: string;
}

export interface NewComment {
  readonly channelId: string;
  readonly postId: string;
  readonly userId: string;
  readonly text: string;
  /** The picture's bytes, not read yet: nothing is stored unless every check passes first. */
  readonly image?: Readable | undefined;
}

export type PostCommentOutcome =
  | { readonly kind: 'posted'; readonly comment: CommentRow; readonly position: Position | null }
  | { readonly kind: 'rejected'; readonly rule: SafetyKind }
  | { readonly kind: 'rate_limited'; readonly retryAfterMs: number };

/**
 * A new comment, in the order of CONTENT-SAFETY.md: the post must be there; then the link and DLP rules
 * (a refusal appends only a moderation event with the rule, a redacted snippet and a keyed hash: the text
 * is stored nowhere); then the user's slow mode; then the ban and whether comments are open, which the
 * decider settles (asked once before the image is stored, so a refused comment stores no bytes, and
 * again when the comment is appended). Domain refusals throw `DomainError`.
 */
export async function postComment(
  deps: PostCommentDeps,
  input: NewComment,
  context: CommandContext,
): Promise<PostCommentOutcome> {
  const { channelId, postId, userId, text } = input;
  const target = await deps.postingContext(channelId, postId, userId);
  if (!target) throw notFound('No such post.');
  const at = new Date().toISOString();

  const hit = checkComment(text, { hashKey: deps.hashKey });
  if (hit) {
    const { kind, snippet, hash } = hit;
    await recordRejection(deps.store, channelId, { postId, userId, kind, snippet, hash, at }, context);
    return { kind: 'rejected', rule: kind };
  }
  const wait = await deps.slowMode.take(channelId, userId, target.commentRate);
  if (wait > 0) return { kind: 'rate_limited', retryAfterMs: wait };

  const command: Extract<CommentCommand, { type: 'post' }> = {
    type: 'post',
    channelId,
    postId,
    authorId: userId,
    text,
    at,
    postVisible: true,
    commentsEnabled: target.commentsEnabled,
    ban: target.ban,
  };
  commentDecider.decide(command, commentDecider.initialState);

  const commentId = randomUUID();
  const image = input.image ? await storeImage(deps, channelId, input.image) : undefined;
  try {
    const { position } = await handleComment(
      deps.store,
      commentId,
      { ...command, ...(image ? { image } : {}) },
      context,
    );
    // The comment as the read table will hold it, so the answer needs no read after the write.
    const comment: CommentRow = {
      id: commentId,
      channelId,
      postId,
      authorId: userId,
      authorIsModerator: target.posterIsModerator,
      text,
      status: 'visible',
      createdAt: at,
      updatedAt: at,
      changeSeq: 0,
      image: image
        ? {
            contentType: image.contentType,
            ...(image.width === undefined ? {} : { width: image.width }),
            ...(image.height === undefined ? {} : { height: image.height }),
          }
        : null,
    };
    return { kind: 'posted', comment, position };
  } catch (error) {
    if (image) await deps.storage.delete(image.storageKey).catch(() => undefined);
    throw error;
  }
}

async function storeImage(deps: PostCommentDeps, channelId: string, source: Readable): Promise<CommentImage> {
  const key = `comments/${channelId}/${randomUUID()}`;
  const stored = await storeUpload(source, { storage: deps.storage, caps: deps.caps, key, kinds: ['image'] });
  const dimensions = await imageDimensions(deps.storage, key, stored.size).catch(async (error: unknown) => {
    await deps.storage.delete(key).catch(() => undefined);
    throw error;
  });
  return { storageKey: key, contentType: stored.mime, size: stored.size, ...(dimensions ?? {}) };
}
