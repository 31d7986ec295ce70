import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Position } from '../events/envelope.ts';
import {
  type PostAttachment,
  type PostButton,
  type PostEvent,
  type PostStatus,
  postCodec,
  postStream,
} from '../events/posts.ts';
import type { EventStore } from '../events/store/port.ts';
import { invalidTransition, notFound } from '../lib/domain-error.ts';
import { type CommandContext, type CommandResult, type Decider, handleCommand } from './handler.ts';

export const MAX_ATTACHMENTS = 10;
const PREVIEW_LENGTH = 200;

export interface PostState {
  /** null until the post is drafted. */
  readonly status: PostStatus | null;
  readonly channelId: string;
  readonly text: string;
  readonly buttons: readonly PostButton[];
  readonly commentsEnabled: boolean;
  readonly attachments: readonly PostAttachment[];
  /** While scheduled: when, and whether publishing pushes. */
  readonly publishAt: string | null;
  readonly notify: boolean;
}

interface Content {
  readonly text?: string;
  readonly buttons?: readonly PostButton[];
  readonly commentsEnabled?: boolean;
}

/** Every command carries its instant (`at`, ISO-8601): deciders read no clock. */
export type PostCommand =
  | ({ readonly type: 'draft'; readonly channelId: string; readonly at: string } & Required<Content>)
  | ({ readonly type: 'edit'; readonly at: string } & Content)
  | { readonly type: 'addAttachment'; readonly attachment: PostAttachment; readonly at: string }
  | { readonly type: 'removeAttachment'; readonly attachmentId: string; readonly at: string }
  | { readonly type: 'schedule'; readonly publishAt: string; readonly notify: boolean; readonly at: string }
  | { readonly type: 'unschedule'; readonly at: string }
  | { readonly type: 'publish'; readonly notify: boolean; readonly at: string }
  /** The schedule job: publishes only a scheduled post whose time has come; otherwise nothing. */
  | { readonly type: 'publishDue'; readonly at: string }
  | { readonly type: 'hide'; readonly at: string }
  | { readonly type: 'unhide'; readonly at: string }
  | { readonly type: 'delete'; readonly at: string };

const initialState: PostState = {
  status: null,
  channelId: '',
  text: '',
  buttons: [],
  commentsEnabled: true,
  attachments: [],
  publishAt: null,
  notify: false,
};

function evolve(state: PostState, event: PostEvent): PostState {
  switch (event.type) {
    case 'postDrafted': {
      const { channelId, text, buttons, commentsEnabled } = event.data;
      return { ...state, status: 'draft', channelId, text, buttons, commentsEnabled };
    }
    case 'postEdited': {
      const { text, buttons, commentsEnabled } = event.data;
      return {
        ...state,
        text: text ?? state.text,
        buttons: buttons ?? state.buttons,
        commentsEnabled: commentsEnabled ?? state.commentsEnabled,
      };
    }
    case 'postAttachmentAdded':
      return { ...state, attachments: [...state.attachments, event.data.attachment] };
    case 'postAttachmentRemoved':
      return { ...state, attachments: state.attachments.filter((a) => a.id !== event.data.attachmentId) };
    case 'postScheduled':
      return { ...state, status: 'scheduled', publishAt: event.data.publishAt, notify: event.data.notify };
    case 'postUnscheduled':
      return { ...state, status: 'draft', publishAt: null, notify: false };
    case 'postPublished':
      return { ...state, status: 'published', publishAt: null };
    case 'postHidden':
      return { ...state, status: 'hidden' };
    case 'postUnhidden':
      return { ...state, status: 'published' };
    case 'postDeleted':
      return { ...state, status: 'deleted' };
  }
}

const refuse = (what: string, status: PostStatus) =>
  invalidTransition(`A post that is ${status} cannot be ${what}.`);

/** The post's status, refusing a command on a post that does not exist or was deleted. */
function existing(state: PostState, what: string): Exclude<PostStatus, 'deleted'> {
  if (state.status === null) throw notFound('No such post.');
  if (state.status === 'deleted') throw refuse(what, 'deleted');
  return state.status;
}

function requireStatus(state: PostState, allowed: readonly PostStatus[], what: string): void {
  const status = existing(state, what);
  if (!allowed.includes(status)) throw refuse(what, status);
}

const sameButtons = (a: readonly PostButton[], b: readonly PostButton[]) =>
  a.length === b.length &&
  a.every((x, i) => x.id === b[i]?.id && x.label === b[i].label && x.url === b[i].url);

function published(state: PostState, notify: boolean, by: 'admin' | 'schedule', at: string): PostEvent[] {
  if (state.text.trim() === '' && state.attachments.length === 0) {
    throw invalidTransition('A post needs text or an attachment to be published.');
  }
  const preview = Array.from(state.text).slice(0, PREVIEW_LENGTH).join('');
  return [{ type: 'postPublished', data: { channelId: state.channelId, notify, preview, by, at } }];
}

/**
 * The post lifecycle: draft -> scheduled -> published; draft -> published; scheduled -> draft (unschedule);
 * published <-> hidden; anything but deleted -> deleted, which is final. Content may be edited until the
 * post is deleted. Every other move is refused (409) naming the current status.
 */
function decide(command: PostCommand, state: PostState): readonly PostEvent[] {
  const { at } = command;
  switch (command.type) {
    case 'draft': {
      if (state.status !== null) throw invalidTransition('This post exists already.');
      const { channelId, text, buttons, commentsEnabled } = command;
      return [{ type: 'postDrafted', data: { channelId, text, buttons: [...buttons], commentsEnabled, at } }];
    }
    case 'edit': {
      existing(state, 'edited');
      const change = {
        ...(command.text !== undefined && command.text !== state.text ? { text: command.text } : {}),
        ...(command.buttons !== undefined && !sameButtons(command.buttons, state.buttons)
          ? { buttons: [...command.buttons] }
          : {}),
        ...(command.commentsEnabled !== undefined && command.commentsEnabled !== state.commentsEnabled
          ? { commentsEnabled: command.commentsEnabled }
          : {}),
      };
      return Object.keys(change).length === 0 ? [] : [{ type: 'postEdited', data: { ...change, at } }];
    }
    case 'addAttachment': {
      existing(state, 'edited');
      if (state.attachments.some((a) => a.id === command.attachment.id)) return [];
      if (state.attachments.length >= MAX_ATTACHMENTS) {
        throw invalidTransition(`A post has at most ${MAX_ATTACHMENTS} attachments.`);
      }
      return [{ type: 'postAttachmentAdded', data: { attachment: command.attachment, at } }];
    }
    case 'removeAttachment': {
      existing(state, 'edited');
      if (!state.attachments.some((a) => a.id === command.attachmentId))
        throw notFound('No such attachment.');
      return [{ type: 'postAttachmentRemoved', data: { attachmentId: command.attachmentId, at } }];
    }
    case 'schedule':
      requireStatus(state, ['draft'], 'scheduled');
      if (Date.parse(command.publishAt) <= Date.parse(at)) {
        throw invalidTransition('publishAt must be in the future.');
      }
      return [{ type: 'postScheduled', data: { publishAt: command.publishAt, notify: command.notify, at } }];
    case 'unschedule':
      requireStatus(state, ['scheduled'], 'unscheduled');
      return [{ type: 'postUnscheduled', data: { at } }];
    case 'publish':
      requireStatus(state, ['draft', 'scheduled'], 'published');
      return published(state, command.notify, 'admin', at);
    case 'publishDue':
      if (state.status !== 'scheduled' || state.publishAt === null) return [];
      if (Date.parse(state.publishAt) > Date.parse(at)) return [];
      return published(state, state.notify, 'schedule', at);
    case 'hide':
      requireStatus(state, ['published'], 'hidden');
      return [{ type: 'postHidden', data: { at } }];
    case 'unhide':
      requireStatus(state, ['hidden'], 'unhidden');
      return [{ type: 'postUnhidden', data: { at } }];
    case 'delete':
      existing(state, 'deleted again');
      return [{ type: 'postDeleted', data: { at } }];
  }
}

export const postDecider: Decider<PostCommand, PostState, PostEvent> = { initialState, evolve, decide };

/** Runs one command on a post's stream (read, fold, decide, append with the revision read). */
export function handlePostCommand(
  store: EventStore,
  postId: string,
  command: PostCommand,
  context: CommandContext,
): Promise<CommandResult<PostEvent>> {
  return handleCommand({
    store,
    stream: postStream(postId),
    decider: postDecider,
    codec: postCodec,
    command,
    context,
  });
}

/** The ports adding media to a post works through. */
export interface PostMediaPorts {
  readonly store: EventStore;
  readonly media: {
    /** Streams a file through the upload checks into storage; throws the refusal of a bad one. */
    store(postId: string, source: Readable): Promise<Omit<PostAttachment, 'id'>>;
    /** Removes stored bytes that no post will refer to. */
    discard(storageKey: string): Promise<void>;
  };
}

/**
 * Adds media to a post: the bytes are stored first (what they are decides the attachment), then the
 * post's `addAttachment` command runs. When the post refuses it (unknown, deleted, full), the bytes go.
 */
export async function attachMedia(
  ports: PostMediaPorts,
  postId: string,
  source: Readable,
  context: CommandContext,
): Promise<{ readonly position: Position | null }> {
  const stored = await ports.media.store(postId, source);
  try {
    const attachment = { id: randomUUID(), ...stored };
    const command: PostCommand = { type: 'addAttachment', attachment, at: new Date().toISOString() };
    const { position } = await handlePostCommand(ports.store, postId, command, context);
    return { position };
  } catch (error) {
    await ports.media.discard(stored.storageKey);
    throw error;
  }
}
