import { type Document, operations } from './types.ts';

/**
 * Examples for the operations an SDK author reaches for first, by operationId. A test checks each one
 * against its schema in the served document, so an example cannot drift from the contract.
 */

interface Examples {
  readonly request?: unknown;
  readonly responses?: Readonly<Record<number, unknown>>;
}

const at = '2026-11-26T09:30:00.000Z';
const later = '2026-11-26T09:31:12.000Z';
const channelId = '0b6f7a52-6a0c-4c57-9c55-3f1e2d8b7a10';
const postId = '5d1c9e7a-2b34-4f8e-a1c2-9e8d7c6b5a41';
const commentId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const ratingId = '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a';

const reply = {
  id: '7781',
  author: { type: 'operator', name: 'Alex' },
  body: '<p>Hello! How can we help?</p>',
  content: [{ type: 'paragraph', children: [{ type: 'text', text: 'Hello! How can we help?' }] }],
  attachments: [],
  createdAt: later,
};

export const examples: Readonly<Record<string, Examples>> = {
  getConfig: {
    responses: {
      200: {
        reasons: {
          support: [{ id: 'billing', title: 'Billing' }],
          complaint: [{ id: 'spam', title: 'Spam' }],
        },
        poll: { chatMs: 4000, commentsMs: 5000 },
        limits: {
          maxFileBytes: 20_971_520,
          maxImageBytes: 10_485_760,
          maxVideoBytes: 52_428_800,
          commentMaxLength: 2000,
        },
      },
    },
  },
  createConversation: {
    request: { text: 'My payment did not go through.', reasonId: 'billing' },
    responses: { 201: { conversationId: '1002', messageId: '7780', created: true } },
  },
  listConversations: {
    responses: {
      200: {
        items: [
          {
            id: '1002',
            state: 'open',
            createdAt: at,
            updatedAt: later,
            unreadCount: 1,
            lastMessage: {
              id: '7781',
              author: reply.author,
              preview: 'Hello! How can we help?',
              createdAt: later,
            },
            rated: false,
          },
        ],
      },
    },
  },
  getConversation: {
    responses: {
      200: {
        id: '1002',
        state: 'open',
        createdAt: at,
        updatedAt: later,
        rated: false,
        messages: [
          {
            id: '7780',
            author: { type: 'user' },
            body: '<p>My payment did not go through.</p>',
            content: [
              { type: 'paragraph', children: [{ type: 'text', text: 'My payment did not go through.' }] },
            ],
            attachments: [],
            createdAt: at,
          },
          reply,
        ],
      },
    },
  },
  getUnreadCounts: { responses: { 200: { conversations: 1, tickets: 0, channels: { [channelId]: 3 } } } },
  listPosts: {
    responses: {
      200: {
        items: [
          {
            id: postId,
            channelId,
            text: 'Version 2.4 is out: faster sync and a dark theme.',
            publishedAt: at,
            attachments: [],
            buttons: [],
            reactions: { counts: { '👍': 12, '🎉': 4 }, mine: ['👍'] },
            viewCount: 340,
            commentCount: 2,
            commentsEnabled: true,
          },
        ],
        nextCursor: null,
      },
    },
  },
  addReaction: { responses: { 200: { counts: { '👍': 13 }, mine: ['👍'] } } },
  recordPostViews: { request: { postIds: [postId] } },
  createComment: {
    request: { text: 'Dark theme at last!' },
    responses: {
      201: {
        id: commentId,
        postId,
        author: { userId: 'user-42', displayName: 'Sam', isModerator: false },
        text: 'Dark theme at last!',
        createdAt: later,
        status: 'visible',
        mine: true,
      },
    },
  },
  submitCsatRating: {
    request: { targetType: 'conversation', targetId: '1002', rating: 5, comment: 'Quick and kind.' },
    responses: { 201: { id: ratingId, targetType: 'conversation', targetId: '1002', rating: 5 } },
  },
  registerDevice: {
    request: {
      platform: 'mobile',
      token: 'fMEP0vJqS0:APA91bH2k7',
      telemetry: {
        appVersion: '4.2.0 (1187)',
        hardwareId: 'A1B2C3D4',
        osVersion: 'iOS 17.4',
        deviceLang: 'en-GB',
      },
    },
  },
  updateNotificationSettings: {
    request: { systemNotices: false },
    responses: { 200: { chatMessages: true, ticketUpdates: true, systemNotices: false } },
  },
};

/** Puts each example on its operation's JSON request body or response, in place. */
export function addExamples(document: Document): void {
  for (const { operation } of operations(document)) {
    const found = operation.operationId === undefined ? undefined : examples[operation.operationId];
    if (!found) continue;
    const body = operation.requestBody?.content?.['application/json'];
    if (found.request !== undefined && body) body.example = found.request;
    for (const [status, example] of Object.entries(found.responses ?? {})) {
      const media = operation.responses?.[status]?.content?.['application/json'];
      if (media) media.example = example;
    }
  }
}
