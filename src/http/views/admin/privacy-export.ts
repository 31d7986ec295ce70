import { z } from 'zod';
import { commentStatusSchema, reportActionSchema, reportReasonSchema } from '../../../events/comments.ts';
import { complaintStatusSchema } from '../../../events/complaints.ts';
import { csatTargetTypeSchema } from '../../../events/csat.ts';
import { platformSchema, pushProviderSchema } from '../../../events/devices.ts';
import { pushCategories } from '../../../push/content.ts';
import { deliveryOutcomes } from '../../../push/push-log.ts';
import type { HeldData } from '../../../queries/privacy.ts';

// The export of GDPR art. 15 (decision 048). Null marks a value not held: never set, or erased.

const at = z.iso.datetime();
const text = z.string().nullable();

export const userDataExportSchema = z
  .object({
    formatVersion: z.literal(1).describe('changes when a field changes meaning or goes'),
    userId: z.string(),
    exportedAt: at,
    devices: z.array(
      z.object({
        token: text.describe('masked: `…` and its last 4 characters, or `…` alone for a short one'),
        platform: platformSchema,
        provider: pushProviderSchema,
        telemetry: z.object({
          appVersion: text,
          osVersion: text,
          deviceLang: text,
          hardwareIdDigest: text.describe('a keyed digest: the hardware id itself is never kept'),
        }),
        registeredAt: at,
        updatedAt: at,
      }),
    ),
    notificationSettings: z
      .object({
        chatMessages: z.boolean(),
        ticketUpdates: z.boolean(),
        systemNotices: z.boolean(),
        updatedAt: at,
      })
      .nullable()
      .describe('null: never changed, every notification on'),
    pushes: z
      .array(
        z.object({
          kind: z.enum(['reply', 'post', 'notice']),
          category: z.enum(pushCategories),
          conversationId: text,
          ticketId: text,
          postId: text,
          noticeId: text,
          csat: z.boolean().describe('a resolved ticket: the push asked for a rating'),
          outcome: z
            .string()
            .describe(
              'the push as a whole: `queued` for its devices, or skipped (`no_device`, `not_configured`)',
            ),
          createdAt: at,
          deliveries: z
            .array(
              z.object({
                platform: platformSchema,
                outcome: z.enum(deliveryOutcomes),
                code: text.describe("the push service's answer, when it refused"),
                attempts: z.number().int(),
                updatedAt: at,
              }),
            )
            .describe("to the user's devices only; a device is not named, as only a digest of it is kept"),
        }),
      )
      .describe('what was pushed to the user (ids and outcomes; what a push said is not kept)'),
    comments: z.array(
      z.object({
        id: z.uuid(),
        channelId: z.uuid(),
        postId: z.uuid(),
        text,
        status: commentStatusSchema,
        image: z.object({ contentType: z.string(), size: z.number().int() }).nullable(),
        createdAt: at,
        updatedAt: at,
      }),
    ),
    reactions: z.array(z.object({ postId: z.uuid(), emoji: z.string(), reactedAt: at })),
    postViews: z.array(z.object({ postId: z.uuid(), viewedAt: at })),
    buttonClicks: z.array(z.object({ postId: z.uuid(), buttonId: z.uuid(), clickedAt: at })),
    channelReads: z.array(
      z.object({ channelId: z.uuid(), lastReadPostId: z.uuid(), lastReadPublishedAt: at, updatedAt: at }),
    ),
    reports: z
      .array(
        z.object({
          id: z.uuid(),
          commentId: z.uuid(),
          channelId: z.uuid(),
          postId: z.uuid(),
          reason: reportReasonSchema,
          note: text,
          status: z.enum(['open', 'resolved']),
          action: reportActionSchema.nullable(),
          createdAt: at,
          resolvedAt: at.nullable(),
        }),
      )
      .describe('the reports the user made'),
    bans: z
      .array(z.object({ channelId: z.uuid(), until: at.nullable(), reason: text, bannedAt: at }))
      .describe("the user's bans from commenting; `until` null: until lifted"),
    moderatorRoles: z.array(z.object({ channelId: z.uuid(), assignedAt: at })),
    moderationHistory: z
      .array(
        z.object({
          action: z
            .string()
            .describe('user_banned, ban_lifted, moderator_assigned, comment_hidden, comment_reported, …'),
          channelId: z.uuid(),
          postId: z.uuid().nullable(),
          commentId: z.uuid().nullable(),
          at,
        }),
      )
      .describe('what moderation did about the user or their comments; who acted is not named'),
    csatRatings: z.array(
      z.object({
        id: z.uuid(),
        targetType: csatTargetTypeSchema,
        targetId: z.string(),
        rating: z.number().int(),
        comment: text,
        ratedAt: at,
      }),
    ),
    complaints: z.array(
      z.object({
        id: z.uuid(),
        reason: z.object({ id: z.uuid(), title: z.string() }),
        text,
        status: complaintStatusSchema,
        conversationId: text,
        ticketId: text,
        attachments: z.array(
          z.object({ fileId: z.uuid(), name: text, contentType: z.string(), size: z.number().int() }),
        ),
        createdAt: at,
        resolvedAt: at.nullable(),
      }),
    ),
    files: z
      .array(
        z.object({
          id: z.uuid(),
          name: text,
          contentType: z.string(),
          kind: z.string(),
          size: z.number().int(),
          createdAt: at,
        }),
      )
      .describe('what the user uploaded: metadata only, not the bytes'),
    supportContact: z
      .object({ contactId: z.string(), telemetryWritten: z.boolean(), mappedAt: at })
      .nullable()
      .describe("the user's contact at the support provider; null: none made yet"),
    conversationReads: z
      .array(
        z.object({
          conversationId: z.string(),
          lastReadMessageId: text,
          lastReadAt: at.describe('when the last message read was written'),
          updatedAt: at,
        }),
      )
      .describe("the user's read markers in support conversations"),
    ticketReads: z
      .array(z.object({ ticketId: z.string(), seenUpdatedAt: at.describe('the ticket version last seen') }))
      .describe('the last version of each support ticket the user looked at'),
    supportProvider: z
      .object({
        provider: z.literal('intercom'),
        contactId: text,
        notice: z
          .string()
          .describe('what the provider keeps, which this export cannot hold, and who can get it'),
      })
      .describe('the support conversations and tickets: kept by the provider, not by this service'),
  })
  .meta({ id: 'UserDataExport' });
export type UserDataExport = z.infer<typeof userDataExportSchema>;

// Slonik answers readonly arrays, the schema's type wants its own.
const list = <T>(rows: readonly T[]): T[] => [...rows];

/** The export as one document: what the read tables hold, where the rest is, and when it was made. */
export const userDataExportView = (
  userId: string,
  exportedAt: Date,
  held: HeldData,
  supportNotice: string,
): UserDataExport => ({
  formatVersion: 1,
  userId,
  exportedAt: exportedAt.toISOString(),
  devices: list(held.devices),
  notificationSettings: held.notificationSettings,
  pushes: held.pushes.map((p) => ({ ...p, deliveries: list(p.deliveries) })),
  comments: list(held.comments),
  reactions: list(held.reactions),
  postViews: list(held.postViews),
  buttonClicks: list(held.buttonClicks),
  channelReads: list(held.channelReads),
  reports: list(held.reports),
  bans: list(held.bans),
  moderatorRoles: list(held.moderatorRoles),
  moderationHistory: list(held.moderationHistory),
  csatRatings: list(held.csatRatings),
  complaints: held.complaints.map((c) => ({ ...c, attachments: list(c.attachments) })),
  files: list(held.files),
  supportContact: held.supportContact,
  conversationReads: list(held.conversationReads),
  ticketReads: list(held.ticketReads),
  supportProvider: {
    provider: 'intercom',
    contactId: held.supportContact?.contactId ?? null,
    notice: supportNotice,
  },
});
