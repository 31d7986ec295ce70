import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { commentStatusSchema, reportActionSchema, reportReasonSchema } from '../events/comments.ts';
import { complaintStatusSchema } from '../events/complaints.ts';
import { csatTargetTypeSchema } from '../events/csat.ts';
import { platformSchema, pushProviderSchema } from '../events/devices.ts';
import { isoInstant } from './iso-instant.ts';

// What the service holds about one user, read from the read tables (not the event log) for the export
// of GDPR art. 15 (decision 048). Columns an erasure empties are read as nullable.

/** Enough of a token to tell devices apart, too little to push to one: its last 4 characters. */
function maskToken(token: string | null): string | null {
  if (token === null) return null;
  // A short token (a messenger chat id) would be mostly shown by its last 4: it shows nothing.
  return token.length > 8 ? `…${token.slice(-4)}` : '…';
}

const text = z.string().nullable();
const instant = isoInstant.nullable();

const deviceRow = z
  .object({
    token: text,
    platform: platformSchema,
    provider: pushProviderSchema,
    registered_at: isoInstant,
    updated_at: isoInstant,
    app_version: text,
    os_version: text,
    device_lang: text,
    hardware_id_digest: text,
  })
  .transform((r) => ({
    token: maskToken(r.token),
    platform: r.platform,
    provider: r.provider,
    telemetry: {
      appVersion: r.app_version,
      osVersion: r.os_version,
      deviceLang: r.device_lang,
      hardwareIdDigest: r.hardware_id_digest,
    },
    registeredAt: r.registered_at,
    updatedAt: r.updated_at,
  }));

const settingsRow = z
  .object({
    chat_messages: z.boolean(),
    ticket_updates: z.boolean(),
    system_notices: z.boolean(),
    updated_at: isoInstant,
  })
  .transform((r) => ({
    chatMessages: r.chat_messages,
    ticketUpdates: r.ticket_updates,
    systemNotices: r.system_notices,
    updatedAt: r.updated_at,
  }));

const commentRow = z
  .object({
    id: z.string(),
    channel_id: z.string(),
    post_id: z.string(),
    text,
    status: commentStatusSchema,
    created_at: isoInstant,
    updated_at: isoInstant,
    image_type: text,
    image_size: z.coerce.number().nullable(),
  })
  .transform((r) => ({
    id: r.id,
    channelId: r.channel_id,
    postId: r.post_id,
    text: r.text,
    status: r.status,
    image:
      r.image_type === null || r.image_size === null
        ? null
        : { contentType: r.image_type, size: r.image_size },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));

const reactionRow = z
  .object({ post_id: z.string(), emoji: z.string(), reacted_at: isoInstant })
  .transform((r) => ({ postId: r.post_id, emoji: r.emoji, reactedAt: r.reacted_at }));

const viewRow = z
  .object({ post_id: z.string(), viewed_at: isoInstant })
  .transform((r) => ({ postId: r.post_id, viewedAt: r.viewed_at }));

const clickRow = z
  .object({ post_id: z.string(), button_id: z.string(), clicked_at: isoInstant })
  .transform((r) => ({ postId: r.post_id, buttonId: r.button_id, clickedAt: r.clicked_at }));

const readRow = z
  .object({
    channel_id: z.string(),
    last_read_post_id: z.string(),
    last_read_published_at: isoInstant,
    updated_at: isoInstant,
  })
  .transform((r) => ({
    channelId: r.channel_id,
    lastReadPostId: r.last_read_post_id,
    lastReadPublishedAt: r.last_read_published_at,
    updatedAt: r.updated_at,
  }));

// Who resolved a report or banned the user is someone else's data: the export names neither.
const reportRow = z
  .object({
    id: z.string(),
    comment_id: z.string(),
    channel_id: z.string(),
    post_id: z.string(),
    reason: reportReasonSchema,
    note: text,
    status: z.enum(['open', 'resolved']),
    action: reportActionSchema.nullable(),
    created_at: isoInstant,
    resolved_at: instant,
  })
  .transform((r) => ({
    id: r.id,
    commentId: r.comment_id,
    channelId: r.channel_id,
    postId: r.post_id,
    reason: r.reason,
    note: r.note,
    status: r.status,
    action: r.action,
    createdAt: r.created_at,
    resolvedAt: r.resolved_at,
  }));

const banRow = z
  .object({ channel_id: z.string(), until: instant, reason: text, banned_at: isoInstant })
  .transform((r) => ({ channelId: r.channel_id, until: r.until, reason: r.reason, bannedAt: r.banned_at }));

const moderatorRow = z
  .object({ channel_id: z.string(), assigned_at: isoInstant })
  .transform((r) => ({ channelId: r.channel_id, assignedAt: r.assigned_at }));

const ratingRow = z
  .object({
    id: z.string(),
    target_type: csatTargetTypeSchema,
    target_id: z.string(),
    rating: z.number(),
    comment: text,
    rated_at: isoInstant,
  })
  .transform((r) => ({
    id: r.id,
    targetType: r.target_type,
    targetId: r.target_id,
    rating: r.rating,
    comment: r.comment,
    ratedAt: r.rated_at,
  }));

const complaintRow = z.object({
  id: z.string(),
  reason_id: z.string(),
  reason_title: z.string(),
  text,
  status: complaintStatusSchema,
  conversation_id: text,
  ticket_id: text,
  created_at: isoInstant,
  resolved_at: instant,
});

const attachmentRow = z.object({
  complaint_id: z.string(),
  file_id: z.string(),
  name: text,
  content_type: z.string(),
  size: z.coerce.number(),
});

const fileRow = z
  .object({
    id: z.string(),
    original_name: text,
    content_type: z.string(),
    kind: z.string(),
    size: z.coerce.number(),
    created_at: isoInstant,
  })
  .transform((r) => ({
    id: r.id,
    name: r.original_name,
    contentType: r.content_type,
    kind: r.kind,
    size: r.size,
    createdAt: r.created_at,
  }));

const contactRow = z
  .object({ contact_id: z.string(), telemetry_written: z.boolean(), created_at: isoInstant })
  .transform((r) => ({
    contactId: r.contact_id,
    telemetryWritten: r.telemetry_written,
    mappedAt: r.created_at,
  }));

type Rows<T extends z.ZodType> = readonly z.infer<T>[];

export interface HeldData {
  readonly devices: Rows<typeof deviceRow>;
  readonly notificationSettings: z.infer<typeof settingsRow> | null;
  readonly comments: Rows<typeof commentRow>;
  readonly reactions: Rows<typeof reactionRow>;
  readonly postViews: Rows<typeof viewRow>;
  readonly buttonClicks: Rows<typeof clickRow>;
  readonly channelReads: Rows<typeof readRow>;
  readonly reports: Rows<typeof reportRow>;
  readonly bans: Rows<typeof banRow>;
  readonly moderatorRoles: Rows<typeof moderatorRow>;
  readonly csatRatings: Rows<typeof ratingRow>;
  readonly complaints: readonly Complaint[];
  readonly files: Rows<typeof fileRow>;
  /** The user's Intercom contact, once the support chat made or found one. */
  readonly supportContact: z.infer<typeof contactRow> | null;
}

export type Complaint = ReturnType<typeof toComplaint>;

const toComplaint = (
  c: z.infer<typeof complaintRow>,
  attachments: readonly z.infer<typeof attachmentRow>[],
) => ({
  id: c.id,
  reason: { id: c.reason_id, title: c.reason_title },
  text: c.text,
  status: c.status,
  conversationId: c.conversation_id,
  ticketId: c.ticket_id,
  attachments: attachments
    .filter((a) => a.complaint_id === c.id)
    .map((a) => ({ fileId: a.file_id, name: a.name, contentType: a.content_type, size: a.size })),
  createdAt: c.created_at,
  resolvedAt: c.resolved_at,
});

/**
 * Everything the read tables hold about `userId`: one query per table, every one in one read-only snapshot,
 * so the export is the state of one instant. Empty sections for a user the service holds nothing about.
 */
export async function heldDataOf(db: CommonQueryMethods, userId: string): Promise<HeldData> {
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    const complaints = await tx.any(sql.type(complaintRow)`
      SELECT id, reason_id, reason_title, text, status, conversation_id, ticket_id, created_at, resolved_at
      FROM complaints WHERE user_id = ${userId} ORDER BY created_at, id`);
    const attachments = await tx.any(sql.type(attachmentRow)`
      SELECT a.complaint_id, a.file_id, a.name, a.content_type, a.size
      FROM complaint_attachments a JOIN complaints c ON c.id = a.complaint_id
      WHERE c.user_id = ${userId} ORDER BY a.complaint_id, a.position`);
    return {
      devices: await tx.any(sql.type(deviceRow)`
        SELECT token, platform, provider, registered_at, updated_at,
          app_version, os_version, device_lang, hardware_id_digest
        FROM devices WHERE user_id = ${userId} ORDER BY registered_at, token`),
      notificationSettings: await tx.maybeOne(sql.type(settingsRow)`
        SELECT chat_messages, ticket_updates, system_notices, updated_at
        FROM notification_settings WHERE user_id = ${userId}`),
      comments: await tx.any(sql.type(commentRow)`
        SELECT c.id, c.channel_id, c.post_id, c.text, c.status, c.created_at, c.updated_at,
          a.content_type AS image_type, a.size AS image_size
        FROM channel_comments c LEFT JOIN comment_attachments a ON a.comment_id = c.id
        WHERE c.author_id = ${userId} ORDER BY c.created_at, c.id`),
      reactions: await tx.any(sql.type(reactionRow)`
        SELECT post_id, emoji, reacted_at FROM post_reactions
        WHERE user_id = ${userId} ORDER BY reacted_at, post_id, emoji`),
      postViews: await tx.any(sql.type(viewRow)`
        SELECT post_id, viewed_at FROM post_views WHERE user_id = ${userId} ORDER BY viewed_at, post_id`),
      buttonClicks: await tx.any(sql.type(clickRow)`
        SELECT post_id, button_id, clicked_at FROM post_button_clicks
        WHERE user_id = ${userId} ORDER BY clicked_at, event_id`),
      channelReads: await tx.any(sql.type(readRow)`
        SELECT channel_id, last_read_post_id, last_read_published_at, updated_at FROM channel_reads
        WHERE user_id = ${userId} ORDER BY channel_id`),
      reports: await tx.any(sql.type(reportRow)`
        SELECT id, comment_id, channel_id, post_id, reason, note, status, action, created_at, resolved_at
        FROM comment_reports WHERE reporter_id = ${userId} ORDER BY created_at, id`),
      bans: await tx.any(sql.type(banRow)`
        SELECT channel_id, until, reason, banned_at FROM comment_bans
        WHERE user_id = ${userId} ORDER BY banned_at, channel_id`),
      moderatorRoles: await tx.any(sql.type(moderatorRow)`
        SELECT channel_id, assigned_at FROM comment_moderators
        WHERE user_id = ${userId} ORDER BY assigned_at, channel_id`),
      csatRatings: await tx.any(sql.type(ratingRow)`
        SELECT id, target_type, target_id, rating, comment, rated_at FROM csat_ratings
        WHERE user_id = ${userId} ORDER BY rated_at, id`),
      complaints: complaints.map((c) => toComplaint(c, attachments)),
      files: await tx.any(sql.type(fileRow)`
        SELECT id, original_name, content_type, kind, size, created_at FROM files
        WHERE owner_id = ${userId} ORDER BY created_at, id`),
      supportContact: await tx.maybeOne(sql.type(contactRow)`
        SELECT contact_id, telemetry_digest IS NOT NULL AS telemetry_written, created_at
        FROM user_contacts WHERE user_id = ${userId}`),
    };
  });
}
