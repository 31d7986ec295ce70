import createClient, { type Client } from 'openapi-fetch';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { components, paths } from '../../clients/api/schema.d.ts';
import { createTestAdmin, loginToken } from '../support/admin.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { clientApi } from '../support/chat.ts';
import { eventually } from '../support/eventually.ts';
import { sessionToken } from '../support/jwt.ts';
import { postThrough } from '../support/posts.ts';

type Schemas = components['schemas'];

// The SDK's main flows, through openapi-fetch typed by the committed clients/api types (decision 032):
// `npm run typecheck` checks every call and every read below against the contract, so a change of the
// document that breaks a client breaks the build here, and the answers are checked at run time.
// Devtools (ENABLE_DEVTOOLS) play the operator; the feed's counters show without their usual lag.
const used = useRunningApp({ env: { ENABLE_DEVTOOLS: '1', FEED_COUNTS_LAG_MS: '0' } });
const url = () => used.running.url;
// The devtools routes are not in the contract the types come from: plain fetch, like their own tests.
const devtools = clientApi(url);

/** A typed client signed in as `userId`, as the web SDK makes one. */
const clientAs = (userId: string): Client<paths> =>
  createClient<paths>({ baseUrl: url(), headers: bearer(sessionToken(TEST_SECRETS.JWT_SECRET, userId)) });

const MIB = 1024 * 1024;

describe('the typed client on the SDK set-up', () => {
  it('reads the config, and a request without a session is a typed problem', async () => {
    const { data, response } = await clientAs('cfg-user').GET('/api/config');
    expect(response.status).toBe(200);
    expectTypeOf(data).toEqualTypeOf<Schemas['ClientConfig'] | undefined>();
    expect(data?.poll).toEqual({ chatMs: 4000, commentsMs: 5000 });
    expect(data?.limits).toEqual({
      maxFileBytes: 20 * MIB,
      maxImageBytes: 10 * MIB,
      maxVideoBytes: 50 * MIB,
      commentMaxLength: 2000,
    });
    expect(data?.reasons).toEqual({ support: [], complaint: [] });

    const anonymous = await createClient<paths>({ baseUrl: url() }).GET('/api/config');
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.data).toBeUndefined();
    expect(anonymous.error).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('reads and changes the notification settings', async () => {
    const client = clientAs('settings-user');
    const before = await client.GET('/api/settings/notifications');
    expect(before.data).toEqual({ chatMessages: true, ticketUpdates: true, systemNotices: true });
    const changed = await client.PUT('/api/settings/notifications', { body: { ticketUpdates: false } });
    expect(changed.data).toEqual({ chatMessages: true, ticketUpdates: false, systemNotices: true });
    expect((await client.GET('/api/settings/notifications')).data?.ticketUpdates).toBe(false);
  });
});

describe('the typed client on the support chat', () => {
  /** The conversation as the user polls it, once `check` holds (webhooks land after the answer). */
  const conversationOnce = (
    client: Client<paths>,
    id: string,
    check: (conversation: Schemas['SupportConversation']) => boolean,
  ) =>
    eventually(async () => {
      const { data, response } = await client.GET('/api/conversations/{id}', { params: { path: { id } } });
      if (!data) throw new Error(`GET /api/conversations/${id} answered ${response.status}`);
      return data;
    }, check);

  it('opens, replies, gets the operator reply, polls with an ETag, counts unread and marks read', async () => {
    const client = clientAs('chat-user');
    const opened = await client.POST('/api/conversations', { body: { text: 'Hello, my sync fails' } });
    expect(opened.response.status).toBe(201);
    const id = opened.data?.conversationId ?? '';
    expect(opened.data).toMatchObject({
      conversationId: expect.stringMatching(/^\d+$/) as unknown,
      created: true,
    });
    const replied = await client.POST('/api/conversations', {
      body: { conversationId: id, text: 'Since 2.4' },
    });
    expect(replied.data).toMatchObject({ conversationId: id, created: false });

    const operator = await devtools.post('chat-user', '/devtools/operator-reply', {
      conversationId: id,
      text: 'We are on it',
    });
    expect(operator.status).toBe(202);
    const thread = await conversationOnce(client, id, (c) => c.messages.length === 3);
    expect(thread.state).toBe('open');
    expect(thread.messages.map((m) => [m.author.type, m.body])).toEqual([
      ['user', '<p>Hello, my sync fails</p>'],
      ['user', '<p>Since 2.4</p>'],
      ['operator', '<p>We are on it</p>'],
    ]);
    expect(thread.messages[2]?.content).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: 'We are on it' }] },
    ]);

    const polled = await client.GET('/api/conversations/{id}', { params: { path: { id } } });
    const etag = polled.response.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"/);
    const unchanged = await client.GET('/api/conversations/{id}', {
      params: { path: { id }, header: { 'if-none-match': etag } },
    });
    expect(unchanged.response.status).toBe(304);
    expect(unchanged.data).toBeUndefined();

    const unread = await eventually(
      async () => (await client.GET('/api/unread')).data,
      (counts) => counts?.conversations === 1,
    );
    expect(unread).toMatchObject({ conversations: 1, tickets: 0 });
    const list = await client.GET('/api/conversations');
    expect(list.data?.items).toEqual([
      expect.objectContaining({ id, state: 'open', unreadCount: 1, rated: false }),
    ]);
    expect(list.data?.items[0]?.lastMessage).toMatchObject({
      author: { type: 'operator' },
      preview: 'We are on it',
    });

    const marked = await client.POST('/api/conversations/{id}/read', { params: { path: { id } }, body: {} });
    expect(marked.response.status).toBe(204);
    expect((await client.GET('/api/unread')).data?.conversations).toBe(0);
  });

  it('rates a conversation the user closed, once', async () => {
    const client = clientAs('csat-user');
    const opened = await client.POST('/api/conversations', { body: { text: 'Please close me' } });
    const id = opened.data?.conversationId ?? '';
    const closed = await client.POST('/api/conversations/{id}/close', { params: { path: { id } } });
    expect(closed.response.status).toBe(204);
    await conversationOnce(client, id, (c) => c.state === 'closed');

    const body = { targetType: 'conversation', targetId: id, rating: 5, comment: 'Quick' } as const;
    const rated = await client.POST('/api/csat', { body });
    expect(rated.response.status).toBe(201);
    expectTypeOf(rated.data).toEqualTypeOf<Schemas['CsatRating'] | undefined>();
    expect(rated.data).toEqual({
      id: expect.any(String) as unknown,
      targetType: 'conversation',
      targetId: id,
      rating: 5,
    });
    const again = await client.POST('/api/csat', { body });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(rated.data);
    const other = await client.POST('/api/csat', { body: { ...body, rating: 1 } });
    expect(other.response.status).toBe(409);
    expect(other.error).toMatchObject({ status: 409, code: 'already_rated' });
    const shown = await conversationOnce(client, id, (c) => c.rated);
    expect(shown).toMatchObject({ state: 'closed', rated: true, rating: 5 });
  });
});

describe('the typed client on the channel', () => {
  let channelId = '';
  let postId = '';

  beforeAll(async () => {
    const token = await loginToken(url(), await createTestAdmin(used.db.pool, 'owner'));
    // The admin panel is a client of the same contract.
    const admin = createClient<paths>({ baseUrl: url(), headers: bearer(token) });
    const made = await admin.POST('/admin/channels', {
      body: { title: 'News', allowedReactions: ['👍', '🔥'] },
    });
    expect(made.response.status).toBe(201);
    channelId = made.data?.id ?? '';
    postId = await postThrough(url(), token, channelId, ['publish'], { text: 'Version 2.4 is out' });
  });

  const post = (client: Client<paths>) =>
    client.GET('/api/channel/{id}/posts/{postId}', { params: { path: { id: channelId, postId } } });

  it('polls the feed with an ETag, reacts, and a reaction makes the next poll a 200', async () => {
    const client = clientAs('reader');
    const path = { id: channelId };
    const first = await client.GET('/api/channel/{id}/posts', { params: { path } });
    expect(first.response.status).toBe(200);
    expectTypeOf(first.data).toEqualTypeOf<Schemas['Feed'] | undefined>();
    expect(first.data?.nextCursor).toBeNull();
    expect(first.data?.items).toEqual([
      expect.objectContaining({
        id: postId,
        channelId,
        text: 'Version 2.4 is out',
        reactions: { counts: {}, mine: [] },
        viewCount: 0,
        commentCount: 0,
        commentsEnabled: true,
      }),
    ]);
    const etag = first.response.headers.get('etag') ?? '';
    expect(Number(first.response.headers.get('x-poll-interval'))).toBeGreaterThan(0);
    const header = { 'if-none-match': etag };
    const same = await client.GET('/api/channel/{id}/posts', { params: { path, header } });
    expect(same.response.status).toBe(304);
    expect(same.data).toBeUndefined();

    const reacted = await client.PUT('/api/channel/{id}/posts/{postId}/reactions/{emoji}', {
      params: { path: { id: channelId, postId, emoji: '🔥' } },
    });
    expect(reacted.data).toEqual({ counts: { '🔥': 1 }, mine: ['🔥'] });
    const changed = await client.GET('/api/channel/{id}/posts', { params: { path, header } });
    expect(changed.response.status).toBe(200);
    expect(changed.data?.items[0]?.reactions).toEqual({ counts: { '🔥': 1 }, mine: ['🔥'] });
    const removed = await client.DELETE('/api/channel/{id}/posts/{postId}/reactions/{emoji}', {
      params: { path: { id: channelId, postId, emoji: '🔥' } },
    });
    expect(removed.data).toEqual({ counts: {}, mine: [] });
    const refused = await client.PUT('/api/channel/{id}/posts/{postId}/reactions/{emoji}', {
      params: { path: { id: channelId, postId, emoji: '😢' } },
    });
    expect(refused.response.status).toBe(403);
    expect(refused.error).toMatchObject({ status: 403, code: 'reaction_not_allowed' });
  });

  it('records views, and the read marker clears the unread badge', async () => {
    const client = clientAs('viewer');
    const viewed = await client.POST('/api/channel/{id}/views', {
      params: { path: { id: channelId } },
      body: { postIds: [postId, postId] },
    });
    expect(viewed.response.status).toBe(204);
    await eventually(
      async () => (await post(client)).data?.viewCount,
      (views) => views === 1,
    );

    const badge = async () => (await client.GET('/api/unread')).data?.channels[channelId];
    expect(await badge()).toBe(1);
    const channels = await client.GET('/api/channels');
    expect(channels.data?.items.find((c) => c.id === channelId)).toMatchObject({ title: 'News', unread: 1 });
    const read = await client.POST('/api/channel/{id}/read', {
      params: { path: { id: channelId } },
      body: { lastReadPostId: postId },
    });
    expect(read.response.status).toBe(204);
    expect(await badge()).toBe(0);
  });

  it('posts a comment and polls the comments with an ETag', async () => {
    const client = clientAs('commenter');
    const path = { id: channelId, postId };
    const posted = await client.POST('/api/channel/{id}/posts/{postId}/comments', {
      params: { path },
      body: { text: 'Dark theme at last!' },
    });
    expect(posted.response.status).toBe(201);
    expectTypeOf(posted.data).toEqualTypeOf<Schemas['Comment'] | undefined>();
    expect(posted.data).toMatchObject({
      postId,
      author: { userId: 'commenter', isModerator: false },
      text: 'Dark theme at last!',
      status: 'visible',
      mine: true,
    });

    const page = await client.GET('/api/channel/{id}/posts/{postId}/comments', { params: { path } });
    const comment = page.data?.items.find((item) => item.id === posted.data?.id);
    // A page holds comments and tombstones; only a comment has a text.
    expect(comment && 'text' in comment ? comment.text : null).toBe('Dark theme at last!');
    expect(typeof page.data?.nextCursor).toBe('string');
    const header = { 'if-none-match': page.response.headers.get('etag') ?? '' };
    const same = await client.GET('/api/channel/{id}/posts/{postId}/comments', { params: { path, header } });
    expect(same.response.status).toBe(304);
    await eventually(
      async () => (await post(client)).data?.commentCount,
      (count) => count === 1,
    );
  });
});
