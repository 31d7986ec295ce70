import { sql } from 'slonik';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deviceKey } from '../../../src/push/queues.ts';
import { adminCall } from '../../support/admin.ts';
import { bearer, useRunningApp } from '../../support/app.ts';
import {
  ADA,
  ADA_VALUES,
  BEN,
  BEN_VALUES,
  exportOf,
  expectStatus,
  makePrivacyDataSet,
  OTHER_ROLES,
  type PrivacyDataSet,
  settledExportOfAda,
} from '../../support/privacy.ts';

// GET /admin/users/:userId/export (issue 37, decision 048): a user acts through the client API, another
// user beside them (test/support/privacy.ts), and the owner's export holds the first one's data and
// nothing of the second's.

const used = useRunningApp();
const url = () => used.running.url;

let made: PrivacyDataSet;
const asAdmin = (method: string, path: string, body?: unknown) =>
  adminCall(url(), made.owner, method, path, body);
const exportAs = (userId: string, token = made.owner, headers: Record<string, string> = {}) =>
  exportOf(url(), token, userId, headers);

beforeAll(async () => {
  made = await makePrivacyDataSet(used);
});

const instant = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown;

describe('GET /admin/users/:userId/export', () => {
  it("answers the user's data as a file to save, token masked, nothing of another user's", async () => {
    // Views and the telemetry written at Intercom land after their requests answered.
    const body = await settledExportOfAda(url(), made.owner);
    const res = await exportAs(ADA, made.owner, { 'if-none-match': '*' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="user-ada-privacy-export.json"',
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toBeNull();
    const raw = await res.text();
    // The push tables name a device by a digest of its token: neither is shown.
    const keys = [ADA_VALUES.token, ADA_VALUES.chatId].map(deviceKey);
    for (const never of [ADA_VALUES.token, ADA_VALUES.chatId, ...Object.values(BEN_VALUES), BEN, 'hw-ada-77'])
      expect(raw).not.toContain(never);
    for (const key of keys) expect(raw).not.toContain(key);

    const { channelId, moderatedChannelId, postId } = made;
    // No push service runs here: the post's push reached her two devices as not configured.
    const postPush = {
      kind: 'post',
      category: 'system',
      conversationId: null,
      ticketId: null,
      postId: made.helpPostId,
      noticeId: null,
      csat: false,
      outcome: 'not_configured',
      createdAt: instant,
      deliveries: [
        { platform: 'mobile', outcome: 'not_configured', code: null, attempts: 0, updatedAt: instant },
        { platform: 'tma', outcome: 'not_configured', code: null, attempts: 0, updatedAt: instant },
      ],
    };
    expect(body).toEqual({
      formatVersion: 1,
      userId: ADA,
      exportedAt: instant,
      devices: [
        {
          token: '…a1b2',
          platform: 'mobile',
          provider: 'fcm',
          telemetry: {
            appVersion: '4.2.0 (1187)',
            osVersion: 'iOS 17.4',
            deviceLang: 'pt-BR',
            hardwareIdDigest: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
          },
          registeredAt: instant,
          updatedAt: instant,
        },
        {
          token: '…8271',
          platform: 'tma',
          provider: 'telegram',
          telemetry: { appVersion: null, osVersion: null, deviceLang: null, hardwareIdDigest: null },
          registeredAt: instant,
          updatedAt: instant,
        },
      ],
      notificationSettings: {
        chatMessages: true,
        ticketUpdates: false,
        systemNotices: true,
        updatedAt: instant,
      },
      // Her support replies may have pushed too, depending on when she polled: checked below.
      pushes: expect.arrayContaining([postPush]) as unknown,
      comments: [
        {
          id: made.adaCommentId,
          channelId,
          postId,
          text: ADA_VALUES.comment,
          status: 'visible',
          image: null,
          createdAt: instant,
          updatedAt: instant,
        },
      ],
      reactions: [{ postId, emoji: '👍', reactedAt: instant }],
      postViews: [{ postId, viewedAt: instant }],
      buttonClicks: [{ postId, buttonId: made.buttonId, clickedAt: instant }],
      channelReads: [{ channelId, lastReadPostId: postId, lastReadPublishedAt: instant, updatedAt: instant }],
      reports: [
        {
          id: expect.any(String) as unknown,
          commentId: made.benCommentId,
          channelId,
          postId,
          reason: 'spam',
          note: ADA_VALUES.reportNote,
          status: 'open',
          action: null,
          createdAt: instant,
          resolvedAt: null,
        },
      ],
      bans: [{ channelId, until: null, reason: ADA_VALUES.banReason, bannedAt: instant }],
      moderatorRoles: [{ channelId: moderatedChannelId, assignedAt: instant }],
      moderationHistory: [
        { action: 'user_banned', channelId, postId: null, commentId: null, at: instant },
        {
          action: 'moderator_assigned',
          channelId: moderatedChannelId,
          postId: null,
          commentId: null,
          at: instant,
        },
      ],
      csatRatings: [
        {
          id: expect.any(String) as unknown,
          targetType: 'conversation',
          targetId: made.conversationId,
          rating: 4,
          comment: ADA_VALUES.csatComment,
          ratedAt: instant,
        },
      ],
      complaints: [
        {
          id: expect.any(String) as unknown,
          reason: { id: made.reasonId, title: 'No answer' },
          text: ADA_VALUES.complaint,
          status: 'open',
          conversationId: null,
          ticketId: null,
          attachments: [
            { fileId: made.fileId, name: 'receipt.txt', contentType: 'text/plain; charset=utf-8', size: 10 },
          ],
          createdAt: instant,
          resolvedAt: null,
        },
      ],
      files: [
        {
          id: made.fileId,
          name: 'receipt.txt',
          contentType: 'text/plain; charset=utf-8',
          kind: 'text',
          size: 10,
          createdAt: instant,
        },
      ],
      supportContact: { contactId: made.contactId, telemetryWritten: true, mappedAt: instant },
      conversationReads: [
        {
          conversationId: made.conversationId,
          lastReadMessageId: expect.any(String) as unknown,
          lastReadAt: instant,
          updatedAt: instant,
        },
      ],
      ticketReads: [{ ticketId: made.ticketId, seenUpdatedAt: instant }],
      supportProvider: {
        provider: 'intercom',
        contactId: made.contactId,
        notice: expect.stringContaining(made.contactId) as unknown,
      },
    });
    const pushes = body.pushes as { kind: string; conversationId: string | null; ticketId: string | null }[];
    for (const push of pushes.filter((p) => p.kind !== 'post')) {
      expect(push.kind).toBe('reply');
      expect([made.conversationId, made.ticketId]).toContain(push.conversationId ?? push.ticketId);
    }
  });

  it('answers 200 with every section empty for a user the service holds nothing about', async () => {
    const res = await exportAs('never-seen');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ formatVersion: 1, userId: 'never-seen', notificationSettings: null });
    const lists = Object.entries(body).filter(([, value]) => Array.isArray(value));
    expect(lists.map(([key]) => key)).toContain('devices');
    for (const [key, value] of lists) expect(value, key).toEqual([]);
    expect(body.supportContact).toBeNull();
    expect(body.supportProvider).toMatchObject({ provider: 'intercom', contactId: null });
  });

  it('names the file after the user id, with nothing in it a header or a file system would read', async () => {
    const res = await exportAs('we"ird/../id;x=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="user-we_ird_.._id_x_1-export.json"',
    );
  });

  it.each(OTHER_ROLES)('refuses the %s with 403', async (role) => {
    const res = await exportAs(ADA, made.tokens.get(role) ?? '');
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.text()).not.toContain(ADA_VALUES.comment);
  });

  it.each([
    ['a blank id', '%20%20'],
    ['a control character', 'ada%07'],
    ['a NUL', 'ada%00'],
  ])('refuses %s with 400 problem+json', async (_label, id) => {
    const res = await fetch(`${url()}/admin/users/${id}/export`, { headers: bearer(made.owner) });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ code: 'validation_failed' });
  });

  it('is audited: who exported which user, and nothing of what the export holds', async () => {
    expect((await exportAs(ADA)).status).toBe(200);
    const log = await expectStatus<{ items: Record<string, unknown>[] }>(
      asAdmin('GET', `/admin/audit-log?action=users.export&targetId=${ADA}`),
    );
    expect(log.items[0]).toMatchObject({
      action: 'users.export',
      target: { type: 'user', id: ADA },
      outcome: 'success',
      statusCode: 200,
      detail: {},
    });
    const denied = await expectStatus<{ items: unknown[] }>(
      asAdmin('GET', '/admin/audit-log?action=users.export&outcome=denied'),
    );
    expect(denied.items.length).toBeGreaterThanOrEqual(4);
    const rows = await used.db.pool.anyFirst(sql.type(z.object({ row: z.string() }))`
      SELECT to_jsonb(l)::text AS row FROM admin_logs l WHERE action = 'users.export'`);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    const text = rows.join('\n');
    for (const never of [...Object.values(ADA_VALUES), '…a1b2', '…8271']) {
      expect(text).not.toContain(never);
    }
  });

  it('is declared in the OpenAPI document as a download: its headers, no ETag and no 304', async () => {
    const document = z
      .object({ paths: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))) })
      .parse(await (await fetch(`${url()}/openapi.json`)).json());
    const operation = z
      .object({
        'x-download': z.literal(true),
        responses: z.record(z.string(), z.object({ headers: z.record(z.string(), z.unknown()).optional() })),
      })
      .parse(document.paths['/admin/users/{userId}/export']?.get);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403']);
    expect(Object.keys(operation.responses['200']?.headers ?? {})).toEqual(
      expect.arrayContaining(['Content-Disposition', 'Cache-Control']),
    );
    expect(Object.keys(operation.responses['200']?.headers ?? {})).not.toContain('ETag');
  });

  it('leaves no comment text, token or other personal value in the logs of the run', () => {
    const logs = used.running.logs.text;
    expect(logs).toContain('/admin/users/');
    for (const never of [...Object.values(ADA_VALUES), ...Object.values(BEN_VALUES)]) {
      expect(logs).not.toContain(never);
    }
  });
});
