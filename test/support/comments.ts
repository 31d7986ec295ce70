import { randomUUID } from 'node:crypto';
import { adminCall } from './admin.ts';
import { bearer, TEST_SECRETS } from './app.ts';
import { sessionToken } from './jwt.ts';

/** Session headers of a client user. */
export const userHeaders = (userId: string) => bearer(sessionToken(TEST_SECRETS.JWT_SECRET, userId));

const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });

/** Posts a comment as `userId` (a new user each time by default, so no slow mode gets in the way). */
export async function commentAs(
  base: string,
  channelId: string,
  postId: string,
  text = 'A fine post.',
  userId = `commenter-${randomUUID()}`,
): Promise<{ readonly status: number; readonly body: Record<string, unknown>; readonly id: string }> {
  const res = await fetch(`${base}/api/channel/${channelId}/posts/${postId}/comments`, {
    method: 'POST',
    headers: json(userHeaders(userId)),
    body: JSON.stringify({ text }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, id: typeof body.id === 'string' ? body.id : '' };
}

/** Reports a comment as a new user; answers the HTTP status. */
export async function reportComment(
  base: string,
  channelId: string,
  postId: string,
  commentId: string,
  reporterId = `reporter-${randomUUID()}`,
): Promise<number> {
  const res = await fetch(`${base}/api/channel/${channelId}/posts/${postId}/comments/${commentId}/report`, {
    method: 'POST',
    headers: json(userHeaders(reporterId)),
    body: JSON.stringify({ reason: 'spam' }),
  });
  return res.status;
}

/** The open report on a comment, as the admin queue lists it. */
export async function openReportOf(base: string, adminToken: string, commentId: string): Promise<string> {
  const queue = await adminCall(base, adminToken, 'GET', '/admin/reports?status=open&limit=100');
  const items = (queue.body as { items: { id: string; commentId: string }[] }).items;
  const found = items.find((r) => r.commentId === commentId);
  if (!found) throw new Error(`no open report on comment ${commentId}`);
  return found.id;
}
