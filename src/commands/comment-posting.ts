import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { checkComment, type SafetyKind } from '../content-safety/index.ts';
import { type CommentImage, commentCodec, commentStream } from '../events/comments.ts';
import type { Position } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { notFound } from '../lib/domain-error.ts';
import { decideNewComment, withImage } from './comments.ts';
import { appendEvents, type CommandContext } from './handler.ts';
import { recordRejection } from './moderation.ts';

/** A channel's slow mode: `burst` comments at once, then one per `intervalSeconds`. */
export interface CommentRate {
  readonly intervalSeconds: number;
  readonly burst: number;
}

/** What posting needs to know of a post, its channel and the poster, as the read side has it now. */
export interface PostingContext {
  /** Open on the post and in its channel. */
  readonly commentsEnabled: boolean;
  readonly commentRate: CommentRate;
  /** The poster's ban in the channel when it holds now (`until` null: until lifted). */
  readonly ban: { readonly until: string | null } | null;
  /** Whether the poster moderates the channel's comments (the badge on their comment). */
  readonly posterIsModerator: boolean;
}

/** The ports posting a comment works through; src/wiring/app.ts fills them from queries, limiters and files. */
export interface CommentPostingPorts {
  readonly store: EventStore;
  /** Null when clients cannot see the post in that channel (a query of the read side). */
  postingContext(channelId: string, postId: string, userId: string): Promise<PostingContext | null>;
  readonly slowMode: {
    /** Takes one comment from the poster's allowance in the channel: 0 when granted, else ms to wait. */
    take(channelId: string, userId: string, rate: CommentRate): Promise<number>;
  };
  readonly images: {
    /** Streams a picture through the upload checks into storage; throws the refusal of a bad one. */
    store(channelId: string, source: Readable): Promise<CommentImage>;
    /** Removes a stored picture that no comment will refer to. */
    discard(storageKey: string): Promise<void>;
  };
  /** Keys the hash a refusal records (see content-safety). */
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

/** A posted comment as every reader's poll will show it, so the answer needs no read after the write. */
export interface PostedComment {
  readonly id: string;
  readonly channelId: string;
  readonly postId: string;
  readonly authorId: string;
  readonly authorIsModerator: boolean;
  readonly text: string;
  readonly status: 'visible';
  readonly createdAt: string;
  readonly image: {
    readonly storageKey: string;
    readonly contentType: string;
    readonly width?: number;
    readonly height?: number;
  } | null;
}

export type PostCommentOutcome =
  | { readonly kind: 'posted'; readonly comment: PostedComment; readonly position: Position | null }
  | { readonly kind: 'rejected'; readonly rule: SafetyKind }
  | { readonly kind: 'rate_limited'; readonly retryAfterMs: number };

/**
 * A new comment, in the order of the content rules: the post must be there; then the link and DLP rules
 * (a refusal appends only a moderation event with the rule, a redacted snippet and a keyed hash: the text
 * is stored nowhere); then the poster's slow mode; then the decider, once, on the ban and whether
 * comments are open. Only a comment it accepts has its picture stored, and the decided event carries it
 * to the append. Domain refusals throw `DomainError`.
 */
export async function postComment(
  ports: CommentPostingPorts,
  input: NewComment,
  context: CommandContext,
): Promise<PostCommentOutcome> {
  const { channelId, postId, userId, text } = input;
  // The poster's data key, if this is a first comment, is made while the post and slow mode are checked.
  ports.store.prepareFor?.(userId);
  const found = await ports.postingContext(channelId, postId, userId);
  if (!found) throw notFound('No such post.');
  const at = new Date().toISOString();

  const hit = checkComment(text, { hashKey: ports.hashKey });
  if (hit) {
    const { kind, snippet, hash } = hit;
    await recordRejection(ports.store, channelId, { postId, userId, kind, snippet, hash, at }, context);
    return { kind: 'rejected', rule: kind };
  }
  const wait = await ports.slowMode.take(channelId, userId, found.commentRate);
  if (wait > 0) return { kind: 'rate_limited', retryAfterMs: wait };

  const posted = decideNewComment({
    type: 'post',
    channelId,
    postId,
    authorId: userId,
    text,
    at,
    postVisible: true,
    commentsEnabled: found.commentsEnabled,
    ban: found.ban,
  });
  const commentId = randomUUID();
  const image = input.image ? await ports.images.store(channelId, input.image) : undefined;
  try {
    const { position } = await appendEvents(
      ports.store,
      commentStream(commentId),
      [image ? withImage(posted, image) : posted],
      { context, codec: commentCodec, expected: 'no_stream', occurredAt: new Date().toISOString() },
    );
    const shown = image && {
      storageKey: image.storageKey,
      contentType: image.contentType,
      ...(image.width === undefined ? {} : { width: image.width }),
      ...(image.height === undefined ? {} : { height: image.height }),
    };
    const comment: PostedComment = {
      id: commentId,
      channelId,
      postId,
      authorId: userId,
      authorIsModerator: found.posterIsModerator,
      text,
      status: 'visible',
      createdAt: at,
      image: shown ?? null,
    };
    return { kind: 'posted', comment, position };
  } catch (error) {
    if (image) await ports.images.discard(image.storageKey);
    throw error;
  }
}
