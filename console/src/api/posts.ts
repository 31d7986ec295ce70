import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { DEFAULT_POLL_MS, usePolledQuery } from './poll.ts';
import { type Answer, problemOf, unwrap } from './problem.ts';

export type AdminPost = Schemas['AdminPost'];
export type PostStatus = AdminPost['status'];
export type PostAttachment = AdminPost['attachments'][number];
/** What an author writes: a button keeps its `id` when sent back, so its clicks stay counted under it. */
export type PostContent = Required<Schemas['PostDraft']>;
export type PostButtonInput = PostContent['buttons'][number];
export type PostStats = Schemas['PostStats'];
export type PushProgress = Schemas['PushProgress'];

export const POST_STATUSES: readonly PostStatus[] = ['draft', 'scheduled', 'published', 'hidden', 'deleted'];
/** The API's limits (src/events/posts.ts, src/commands/posts.ts): the form says them before the server. */
export const MAX_BUTTONS = 8;
export const MAX_ATTACHMENTS = 10;
export const MAX_POST_TEXT = 4096;

const postsKey = ['posts'] as const;
const postKey = (postId: string) => ['post', postId] as const;

/** The newest page of a channel's posts, of one status or of every status but deleted. */
export function useChannelPosts(channelId: string, status: PostStatus | null) {
  return usePolledQuery([...postsKey, channelId, status], (headers) =>
    api.GET('/admin/channels/{id}/posts', {
      params: { path: { id: channelId }, query: status === null ? {} : { status } },
      headers,
    }),
  );
}

async function readPost(postId: string): Promise<AdminPost | null> {
  const answer = await api.GET('/admin/posts/{postId}', { params: { path: { postId } } });
  return answer.response.status === 404 ? null : unwrap(answer);
}

/**
 * One post (null: no such post). A scheduled post is read again just after its time, so the page shows the
 * scheduler's publication; otherwise as often as a list.
 */
export function usePost(postId: string) {
  return useQuery({
    queryKey: postKey(postId),
    queryFn: () => readPost(postId),
    refetchInterval: (query) => {
      const publishAt = query.state.data?.status === 'scheduled' ? query.state.data.publishAt : null;
      if (publishAt === null) return DEFAULT_POLL_MS;
      return Math.min(DEFAULT_POLL_MS, Math.max(1_000, Date.parse(publishAt) - Date.now() + 1_500));
    },
    refetchIntervalInBackground: false,
  });
}

/** The pages show what the server answered: the post as it said, and the lists read again. */
function useHoldPost() {
  const client = useQueryClient();
  return (post: AdminPost) => {
    client.setQueryData(postKey(post.id), post);
    void client.invalidateQueries({ queryKey: postsKey });
  };
}

/** A file the server refused, and the post as it stood then (a new one exists once its text is saved). */
export class UploadRefused extends Error {
  readonly file: File;
  readonly problem: unknown;
  readonly post: AdminPost;

  constructor(file: File, problem: unknown, post: AdminPost) {
    super(`${file.name} was refused`);
    this.name = 'UploadRefused';
    this.file = file;
    this.problem = problem;
    this.post = post;
  }
}

export interface PostSave {
  /** The post so far, or null to draft a new one in `channelId`. */
  readonly post: AdminPost | null;
  readonly channelId: string;
  /** The content to save: all of it for a new post, only what changed for one (null: nothing). */
  readonly content: Partial<PostContent> | null;
  /** New media, uploaded one by one once the content is saved. */
  readonly files: readonly File[];
  /** The new draft's Idempotency-Key: a second click cannot draft a second post. */
  readonly key: string;
  /** Each file the server took, with the attachment it became. */
  readonly onUploaded: (file: File, attachmentId: string | null) => void;
}

function uploadForm(file: File): FormData {
  const form = new FormData();
  form.append('file', file);
  return form;
}

/** Drafts or edits a post, then uploads its new media through the admin post-media API. */
export function useSavePost() {
  const hold = useHoldPost();
  return useMutation({
    mutationFn: async ({ post, channelId, content, files, key, onUploaded }: PostSave) => {
      let saved: AdminPost;
      if (post === null) {
        const params = { path: { id: channelId }, header: { 'idempotency-key': key } };
        saved = unwrap(await api.POST('/admin/channels/{id}/posts', { params, body: content ?? {} }));
        hold(saved);
      } else if (content === null) {
        saved = post;
      } else {
        const params = { path: { postId: post.id } };
        saved = unwrap(await api.PATCH('/admin/posts/{postId}', { params, body: content }));
        hold(saved);
      }
      for (const file of files) {
        const before = new Set(saved.attachments.map((attachment) => attachment.id));
        const answer: Answer<AdminPost> = await api.POST('/admin/posts/{postId}/attachments', {
          params: { path: { postId: saved.id } },
          // The contract types the part as a string; the browser sends the file itself.
          body: { file: file.name },
          bodySerializer: () => uploadForm(file),
        });
        if (!answer.response.ok) throw new UploadRefused(file, problemOf(answer), saved);
        saved = unwrap(answer);
        hold(saved);
        onUploaded(file, saved.attachments.find((attachment) => !before.has(attachment.id))?.id ?? null);
      }
      return saved;
    },
  });
}

export function useRemoveAttachment(postId: string) {
  const hold = useHoldPost();
  return useMutation({
    mutationFn: async (attachmentId: string) =>
      unwrap(
        await api.DELETE('/admin/posts/{postId}/attachments/{attachmentId}', {
          params: { path: { postId, attachmentId } },
        }),
      ),
    onSuccess: hold,
  });
}

/** A move of the post's lifecycle (API.md "Admin API > Posts"). */
export type PostMove =
  | { readonly type: 'schedule'; readonly publishAt: string; readonly notify: boolean }
  | { readonly type: 'publish'; readonly notify: boolean }
  | { readonly type: 'unschedule' | 'hide' | 'unhide' | 'delete' };

async function move(postId: string, step: PostMove): Promise<AdminPost> {
  const params = { path: { postId } };
  switch (step.type) {
    case 'schedule':
      return unwrap(
        await api.POST('/admin/posts/{postId}/schedule', {
          params,
          body: { publishAt: step.publishAt, notify: step.notify },
        }),
      );
    case 'publish':
      return unwrap(
        await api.POST('/admin/posts/{postId}/publish', { params, body: { notify: step.notify } }),
      );
    case 'unschedule':
      return unwrap(await api.POST('/admin/posts/{postId}/unschedule', { params }));
    case 'hide':
      return unwrap(await api.POST('/admin/posts/{postId}/hide', { params }));
    case 'unhide':
      return unwrap(await api.POST('/admin/posts/{postId}/unhide', { params }));
    case 'delete':
      return unwrap(await api.DELETE('/admin/posts/{postId}', { params }));
  }
}

export function useMovePost(postId: string) {
  const hold = useHoldPost();
  return useMutation({ mutationFn: (step: PostMove) => move(postId, step), onSuccess: hold });
}

/** How often the numbers are read again: quickly while a push is going out, else as a list. */
const PUSHING_POLL_MS = 2_000;

/** A post's views and clicks per UTC day, reactions by emoji, clicks by button and its push's progress. */
export function usePostStats(postId: string) {
  return useQuery({
    queryKey: ['post-stats', postId],
    queryFn: async () =>
      unwrap(await api.GET('/admin/posts/{postId}/stats', { params: { path: { postId } } })),
    refetchInterval: (query) => {
      const push = query.state.data?.push;
      return push && push.state !== 'done' ? PUSHING_POLL_MS : DEFAULT_POLL_MS;
    },
    refetchIntervalInBackground: false,
  });
}
