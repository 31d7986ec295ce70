import { expect } from 'vitest';
import { z } from 'zod';
import type { Role } from '../../src/auth/permissions.ts';
import { adminCall, createTestAdmin, loginToken } from './admin.ts';
import { bearer, TEST_SECRETS, type UsedApp } from './app.ts';
import { clientApi, requireSandbox } from './chat.ts';
import { commentAs } from './comments.ts';
import { eventually } from './eventually.ts';
import { sessionToken } from './jwt.ts';
import { postThrough } from './posts.ts';

// The data set of the privacy tests (issue 37, decision 048): Ada, who did everything the service keeps
// something of, through the client API, and Ben beside her. The export must hold all of Ada's and none of
// Ben's; the erasure must leave nothing of Ada's and all of Ben's.

export const ADA = 'ada-privacy';
export const BEN = 'ben-privacy';

/** Ada's personal values: the export shows them (the tokens masked), an erasure leaves none anywhere. */
export const ADA_VALUES = {
  token: 'fcm-ada-token-3f9c0e7d5b2a-a1b2',
  chatId: '-1009274615038271',
  comment: 'ada-comment-5b8e: the dark theme is lovely',
  complaint: 'ada-complaint-41c7: the operator never answered',
  csatComment: 'ada-csat-6e0a: quick and kind',
  reportNote: 'ada-report-7d3b: the same link again and again',
  banReason: 'ada-ban-2c5d: links to a shop',
} as const;

/** Ben's values: never in Ada's export, untouched by her erasure. */
export const BEN_VALUES = {
  token: 'fcm-ben-token-8e1d4c6b9f0a-c3d4',
  comment: 'ben-comment-9d2f: buy cheap watches here',
} as const;

export const ADA_TELEMETRY = {
  appVersion: '4.2.0 (1187)',
  hardwareId: 'hw-ada-77',
  osVersion: 'iOS 17.4',
  deviceLang: 'pt-BR',
} as const;

export const OTHER_ROLES = ['author', 'moderator', 'support', 'auditor'] as const;

/** What the data set made, and the admins' session tokens. */
export interface PrivacyDataSet {
  /** The owner's session token, and account id. */
  readonly owner: string;
  readonly ownerId: string;
  /** A session token of each role but the owner's. */
  readonly tokens: ReadonlyMap<Role, string>;
  readonly channelId: string;
  /** The channel Ada moderates. */
  readonly moderatedChannelId: string;
  readonly postId: string;
  readonly buttonId: string;
  readonly adaCommentId: string;
  readonly benCommentId: string;
  readonly conversationId: string;
  /** A ticket the team opened for Ada, which she looked at. */
  readonly ticketId: string;
  /** A post in the channel Ada moderates, published with a push to every device. */
  readonly helpPostId: string;
  /** Ada's contact at the Intercom sandbox. */
  readonly contactId: string;
  readonly reasonId: string;
  /** Ada's upload, attached to her complaint. */
  readonly fileId: string;
  readonly benFileId: string;
}

type Answer = Promise<{ status: number; json?: unknown; body?: unknown }>;

/** The answer's body, once its status is the one expected (the body is the failure's message). */
export async function expectStatus<T>(answer: Answer, status = 200): Promise<T> {
  const got = await answer;
  expect(got.status, JSON.stringify(got.json ?? got.body)).toBe(status);
  return (got.json ?? got.body) as T;
}

/** A small text file uploaded by `user`; answers its id. */
export async function uploadAs(url: string, user: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob(['receipt 42'], { type: 'text/plain' }), 'receipt.txt');
  const res = await fetch(`${url}/api/files/upload`, {
    method: 'POST',
    headers: bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user)),
    body: form,
  });
  expect(res.status).toBe(201);
  return z.object({ id: z.string() }).parse(await res.json()).id;
}

/** GET /admin/users/:userId/export as the admin whose token is given. */
export const exportOf = (url: string, token: string, userId: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/admin/users/${encodeURIComponent(userId)}/export`, {
    headers: { ...bearer(token), ...headers },
  });

type ExportedPush = { kind: string; outcome: string; deliveries: { outcome: string }[] };

/**
 * The post's push has reached both of Ada's devices and its sends have settled; with no push service,
 * its own outcome says so too (the fan-out's last write).
 */
const postPushSettled = (pushes: unknown): boolean =>
  Array.isArray(pushes) &&
  (pushes as ExportedPush[]).some(
    (p) =>
      p.kind === 'post' &&
      p.deliveries.length === 2 &&
      p.deliveries.every((d) => d.outcome !== 'queued') &&
      (p.outcome !== 'queued' || p.deliveries.some((d) => d.outcome !== 'not_configured')),
  );

/**
 * Ada's export once what lands after its request has landed: her view, her telemetry written at
 * Intercom, and the post's push to her devices. Before an erasure, this is the data set settled.
 */
export const settledExportOfAda = (url: string, owner: string) =>
  eventually(
    async () => (await exportOf(url, owner, ADA)).json() as Promise<Record<string, unknown>>,
    (b) =>
      Array.isArray(b.postViews) &&
      b.postViews.length === 1 &&
      (b.supportContact as { telemetryWritten?: boolean } | null)?.telemetryWritten === true &&
      postPushSettled(b.pushes),
    10_000,
  );

/**
 * Ada's support conversation, which she read, closed by the team once her poll shows it closed, so she
 * may rate it.
 */
async function closedConversation(used: UsedApp): Promise<string> {
  const api = clientApi(() => used.running.url);
  const { conversationId } = await expectStatus<{ conversationId: string }>(
    api.post(ADA, '/conversations', { text: 'Help me' }),
    201,
  );
  await expectStatus(api.post(ADA, `/conversations/${conversationId}/read`, {}), 204);
  await requireSandbox(used.running.support.sandbox).operator.close(conversationId);
  await eventually(
    async () => (await api.get(ADA, `/conversations/${conversationId}`)).json as { state: string },
    (c) => c.state === 'closed',
  );
  return conversationId;
}

/** A ticket the team opens for Ada's contact; looking at it sets her read marker. */
async function seenTicket(used: UsedApp, contactId: string): Promise<string> {
  const api = clientApi(() => used.running.url);
  const sandbox = requireSandbox(used.running.support.sandbox);
  const { id } = await sandbox.operator.createTicket({ contactId, title: 'Broken screen' });
  await eventually(
    async () => (await api.get(ADA, `/tickets/${id}`)).status,
    (status) => status === 200,
  );
  return id;
}

/** A post in the channel Ada moderates (she is banned from the other), pushed to every device. */
async function pushedPost(url: string, owner: string, channelId: string): Promise<string> {
  const postId = await postThrough(url, owner, channelId, [], { text: 'FAQ' });
  await expectStatus(adminCall(url, owner, 'POST', `/admin/posts/${postId}/publish`, { notify: true }));
  return postId;
}

async function admins(used: UsedApp) {
  const url = used.running.url;
  const ownerAccount = await createTestAdmin(used.db.pool, 'owner');
  const owner = await loginToken(url, ownerAccount);
  const tokens = new Map<Role, string>();
  for (const role of OTHER_ROLES) {
    tokens.set(role, await loginToken(url, await createTestAdmin(used.db.pool, role)));
  }
  return { owner, ownerId: ownerAccount.id, tokens };
}

/** Two channels, a published post with a button, and a complaint reason. */
async function content(url: string, owner: string) {
  const asOwner = (method: string, path: string, body?: unknown) => adminCall(url, owner, method, path, body);
  const channelId = (
    await expectStatus<{ id: string }>(asOwner('POST', '/admin/channels', { title: 'News' }), 201)
  ).id;
  const moderatedChannelId = (
    await expectStatus<{ id: string }>(asOwner('POST', '/admin/channels', { title: 'Help' }), 201)
  ).id;
  const postId = await postThrough(url, owner, channelId, ['publish'], {
    text: 'Version 2.4',
    buttons: [{ label: 'Read more', url: 'https://example.com/more' }],
  });
  const post = await expectStatus<{ buttons: { id: string }[] }>(asOwner('GET', `/admin/posts/${postId}`));
  const reason = { kind: 'complaint', title: 'No answer' };
  const reasonId = (await expectStatus<{ id: string }>(asOwner('POST', '/admin/reasons', reason), 201)).id;
  return { channelId, moderatedChannelId, postId, buttonId: post.buttons[0]?.id ?? '', reasonId };
}

/**
 * Makes the data set through the app's APIs. Ada: support first (a conversation she read, a ticket she
 * looked at), so her contact exists when her devices' telemetry is written there; then devices, settings,
 * a comment, a reaction, a view, a click, a read marker, an upload attached to a complaint, a CSAT rating,
 * and a report with a note on Ben's comment. Ben: a comment, a device, a reaction, a view, an upload. The
 * owner bans Ada from the channel, makes her a moderator of the other one, and publishes a post there
 * with a push to every device.
 */
export async function makePrivacyDataSet(used: UsedApp): Promise<PrivacyDataSet> {
  const url = used.running.url;
  const api = clientApi(() => url);
  const { owner, ownerId, tokens } = await admins(used);
  const made = await content(url, owner);
  const { channelId, postId } = made;

  const conversationId = await closedConversation(used);
  const sandbox = requireSandbox(used.running.support.sandbox);
  const contactId = [...sandbox.state.contacts.values()].find((c) => c.externalId === ADA)?.id ?? '';
  const ticketId = await seenTicket(used, contactId);
  const rating = {
    targetType: 'conversation',
    targetId: conversationId,
    rating: 4,
    comment: ADA_VALUES.csatComment,
  };
  await expectStatus(api.post(ADA, '/csat', rating), 201);
  const mobile = { platform: 'mobile', token: ADA_VALUES.token, telemetry: ADA_TELEMETRY };
  await expectStatus(api.post(ADA, '/devices/register', mobile));
  await expectStatus(api.post(ADA, '/devices/register', { platform: 'tma', token: ADA_VALUES.chatId }));
  await expectStatus(api.call(ADA, 'PUT', '/settings/notifications', { ticketUpdates: false }));
  const channel = `/channel/${channelId}`;
  const onPost = `${channel}/posts/${postId}`;
  const adaCommentId = (await commentAs(url, channelId, postId, ADA_VALUES.comment, ADA)).id;
  await expectStatus(api.call(ADA, 'PUT', `${onPost}/reactions/${encodeURIComponent('👍')}`));
  await expectStatus(api.post(ADA, `${channel}/views`, { postIds: [postId] }), 204);
  await expectStatus(api.post(ADA, `${onPost}/buttons/${made.buttonId}/click`, undefined));
  await expectStatus(api.post(ADA, `${channel}/read`, { lastReadPostId: postId }), 204);
  const fileId = await uploadAs(url, ADA);
  const complaint = { reasonId: made.reasonId, text: ADA_VALUES.complaint, attachmentIds: [fileId] };
  await expectStatus(api.post(ADA, '/complaints', complaint), 201);

  const benCommentId = (await commentAs(url, channelId, postId, BEN_VALUES.comment, BEN)).id;
  const report = { reason: 'spam', note: ADA_VALUES.reportNote };
  await expectStatus(api.post(ADA, `${onPost}/comments/${benCommentId}/report`, report), 202);
  await expectStatus(api.post(BEN, '/devices/register', { platform: 'mobile', token: BEN_VALUES.token }));
  await expectStatus(api.call(BEN, 'PUT', `${onPost}/reactions/${encodeURIComponent('🔥')}`));
  await expectStatus(api.post(BEN, `${channel}/views`, { postIds: [postId] }), 204);
  const benFileId = await uploadAs(url, BEN);

  const ban = { userId: ADA, reason: ADA_VALUES.banReason };
  await expectStatus(adminCall(url, owner, 'POST', `/admin/channels/${channelId}/bans`, ban), 201);
  const moderator = `/admin/channels/${made.moderatedChannelId}/moderators/${ADA}`;
  await expectStatus(adminCall(url, owner, 'PUT', moderator), 204);
  const helpPostId = await pushedPost(url, owner, made.moderatedChannelId);
  return {
    owner,
    ownerId,
    tokens,
    ...made,
    adaCommentId,
    benCommentId,
    conversationId,
    ticketId,
    helpPostId,
    contactId,
    fileId,
    benFileId,
  };
}
