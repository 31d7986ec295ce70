import {
  type CommentEvent,
  type CommentImage,
  type CommentPostedData,
  type CommentStatus,
  commentCodec,
  commentStream,
  type ModeratorRef,
} from '../events/comments.ts';
import type { Position } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import { DomainError, forbidden, invalidTransition, notFound } from '../lib/domain-error.ts';
import { type CommandContext, type CommandResult, type Decider, handleCommand } from './handler.ts';

export interface CommentState {
  /** null until the comment is posted. */
  readonly status: CommentStatus | null;
  readonly channelId: string;
  readonly postId: string;
  /** Null until posted, and for a comment whose text was erased with its author (decision 048): nobody's. */
  readonly authorId: string | null;
  /** Everyone who ever reported it: one report per (user, comment). */
  readonly reporters: ReadonlySet<string>;
  readonly openReports: readonly string[];
  /** The report rule hides a comment once; a moderator's unhide then stands. */
  readonly autoHidden: boolean;
}

/** Facts from the read side that the posting rules need, gathered by the caller before deciding. */
export interface PostingFacts {
  readonly postVisible: boolean;
  readonly commentsEnabled: boolean;
  /** The author's active ban in the channel, if any (`until` null: until lifted). */
  readonly ban: { readonly until: string | null } | null;
}

/** A new comment, with what the read side knows of its post and its author; its picture comes later. */
export type PostComment = {
  readonly type: 'post';
  readonly channelId: string;
  readonly postId: string;
  readonly authorId: string;
  readonly text: string;
  readonly at: string;
} & PostingFacts;

type CommentPosted = Extract<CommentEvent, { type: 'commentPosted' }>;

/** Every command carries its instant (`at`): deciders read no clock. */
export type CommentCommand =
  | PostComment
  | { readonly type: 'deleteOwn'; readonly userId: string; readonly at: string }
  | { readonly type: 'hide'; readonly by: ModeratorRef; readonly reason?: string; readonly at: string }
  | { readonly type: 'unhide'; readonly by: ModeratorRef; readonly at: string }
  | { readonly type: 'delete'; readonly by: ModeratorRef; readonly reason?: string; readonly at: string }
  | {
      readonly type: 'report';
      readonly reportId: string;
      readonly reporterId: string;
      readonly reason: 'spam' | 'abuse' | 'scam' | 'other';
      readonly note?: string;
      /** The channel's auto-hide threshold now: recorded in the event when it fires. */
      readonly autoHideThreshold: number;
      readonly at: string;
    }
  | {
      readonly type: 'resolveReports';
      readonly action: 'dismiss' | 'hide' | 'delete';
      readonly by: ModeratorRef;
      readonly at: string;
    };

export const initialCommentState: CommentState = {
  status: null,
  channelId: '',
  postId: '',
  authorId: null,
  reporters: new Set(),
  openReports: [],
  autoHidden: false,
};

function evolve(state: CommentState, event: CommentEvent): CommentState {
  switch (event.type) {
    case 'commentPosted': {
      const { channelId, postId, authorId, text } = event.data;
      return { ...state, status: 'visible', channelId, postId, authorId: text === null ? null : authorId };
    }
    case 'commentDeletedByAuthor':
    case 'commentDeleted':
      return { ...state, status: 'deleted' };
    case 'commentHidden':
      return { ...state, status: 'hidden' };
    case 'commentUnhidden':
      return { ...state, status: 'visible' };
    case 'commentAutoHidden':
      return { ...state, status: 'hidden', autoHidden: true };
    case 'commentReported':
      return {
        ...state,
        reporters: new Set([...state.reporters, event.data.reporterId]),
        openReports: [...state.openReports, event.data.reportId],
      };
    case 'reportsResolved': {
      const resolved = new Set(event.data.reportIds);
      return { ...state, openReports: state.openReports.filter((id) => !resolved.has(id)) };
    }
  }
}

const banned = (until: string | null) =>
  new DomainError('forbidden', 'user_banned', 'You are banned from commenting in this channel.', { until });

function decidePost(command: PostComment, state: CommentState): [CommentPosted] {
  if (state.status !== null) throw invalidTransition('This comment exists already.');
  if (!command.postVisible) throw notFound('No such post.');
  if (!command.commentsEnabled) throw forbidden('Comments are closed on this post.', 'comments_closed');
  if (command.ban) throw banned(command.ban.until);
  const { channelId, postId, authorId, text, at } = command;
  return [{ type: 'commentPosted', data: { channelId, postId, authorId, text, at } }];
}

/** A new comment's event, decided on the empty stream that a new comment id starts (a refusal throws). */
export const decideNewComment = (command: PostComment): CommentPosted =>
  decidePost(command, initialCommentState)[0];

/** The posted comment with its picture, stored after the decision and before the append. */
export const withImage = (posted: CommentPosted, image: CommentImage): CommentPosted => {
  const data: CommentPostedData = posted.data;
  return { type: 'commentPosted', data: { ...data, image } };
};

/** Moderators act on what exists and is not deleted; a repeat of what is already so changes nothing. */
function decideModeration(
  command: Extract<CommentCommand, { type: 'hide' | 'unhide' | 'delete' }>,
  state: CommentState,
): CommentEvent[] {
  const { status } = state;
  if (status === null) throw notFound('No such comment.');
  if (status === 'deleted') {
    if (command.type === 'delete') return [];
    throw invalidTransition('The comment is deleted.');
  }
  const { by, at } = command;
  switch (command.type) {
    case 'hide':
      if (status === 'hidden') return [];
      return [{ type: 'commentHidden', data: { by, ...optionalReason(command.reason), at } }];
    case 'unhide':
      return status === 'hidden' ? [{ type: 'commentUnhidden', data: { by, at } }] : [];
    case 'delete':
      return [
        {
          type: 'commentDeleted',
          data: { by, ...optionalReason(command.reason), previousStatus: status, at },
        },
      ];
  }
}

const optionalReason = (reason: string | undefined): { reason?: string } =>
  reason === undefined ? {} : { reason };

function decideReport(
  command: Extract<CommentCommand, { type: 'report' }>,
  state: CommentState,
): CommentEvent[] {
  // Reporters see only visible comments; anything else is not there for them.
  if (state.status !== 'visible') throw notFound('No such comment.');
  if (state.reporters.has(command.reporterId)) return [];
  const { reportId, reporterId, reason, note, at } = command;
  const reported: CommentEvent = {
    type: 'commentReported',
    data: { reportId, reporterId, reason, ...(note === undefined ? {} : { note }), at },
  };
  const reports = state.reporters.size + 1;
  const threshold = command.autoHideThreshold;
  if (state.autoHidden || reports < threshold) return [reported];
  return [
    reported,
    { type: 'commentAutoHidden', data: { rule: 'distinct_reports', threshold, reports, at } },
  ];
}

function decideResolve(
  command: Extract<CommentCommand, { type: 'resolveReports' }>,
  state: CommentState,
): CommentEvent[] {
  if (state.status === null) throw notFound('No such comment.');
  if (state.openReports.length === 0) throw invalidTransition('The comment has no open report.');
  const { action, by, at } = command;
  const resolved: CommentEvent = {
    type: 'reportsResolved',
    data: { reportIds: [...state.openReports], action, by, at },
  };
  if (action === 'dismiss') return [resolved];
  // Hiding or deleting what already is so records only the resolution.
  const effect = state.status === 'deleted' ? [] : decideModeration({ type: action, by, at }, state);
  return [resolved, ...effect];
}

/**
 * A comment's life: posted (only while the post is visible, comments are open and the author is not
 * banned); deleted by its author; hidden, unhidden and deleted by moderators; reported once per user,
 * hidden by the report rule at the channel's threshold, and its reports resolved by a moderator.
 */
export const commentDecider: Decider<CommentCommand, CommentState, CommentEvent> = {
  initialState: initialCommentState,
  evolve,
  decide(command, state) {
    switch (command.type) {
      case 'post':
        return decidePost(command, state);
      case 'deleteOwn':
        if (state.status === null) throw notFound('No such comment.');
        if (state.authorId !== command.userId) throw forbidden('Only its author can delete a comment.');
        if (state.status === 'deleted') return [];
        return [{ type: 'commentDeletedByAuthor', data: { previousStatus: state.status, at: command.at } }];
      case 'hide':
      case 'unhide':
      case 'delete':
        return decideModeration(command, state);
      case 'report':
        return decideReport(command, state);
      case 'resolveReports':
        return decideResolve(command, state);
    }
  },
};

/** Runs a command on an existing comment (a new one is posted by `postComment`, comment-posting.ts). */
export async function handleComment(
  store: EventStore,
  commentId: string,
  command: Exclude<CommentCommand, PostComment>,
  context: CommandContext,
): Promise<CommandResult<CommentEvent> & { readonly position: Position | null }> {
  return handleCommand({
    store,
    stream: commentStream(commentId),
    decider: commentDecider,
    codec: commentCodec,
    command,
    context,
  });
}
