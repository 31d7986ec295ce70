import { z } from 'zod';

export const banSchema = z
  .object({
    userId: z.string(),
    until: z.iso.datetime().nullable(),
    reason: z.string().nullable().describe('null once the banned user was erased'),
    bannedBy: z.object({ type: z.string(), id: z.string() }),
    bannedAt: z.iso.datetime(),
  })
  .meta({ id: 'CommentBan' });

export const moderationEventSchema = z
  .object({
    id: z.uuid(),
    channelId: z.uuid(),
    postId: z.uuid().nullable(),
    commentId: z.uuid().nullable(),
    userId: z.string().nullable().describe('the user the action is about; null when none, or erased'),
    action: z.string(),
    actor: z.object({
      type: z.string(),
      id: z
        .string()
        .nullable()
        .describe('null once a user who acted (a reporter, a refused poster) was erased'),
    }),
    reason: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()),
    occurredAt: z.iso.datetime(),
  })
  .meta({ id: 'ModerationEvent' });

export const moderationReplaySchema = z
  .object({
    channelId: z.uuid(),
    asOf: z.iso.datetime(),
    comments: z.array(
      z.object({
        id: z.uuid(),
        postId: z.uuid(),
        authorId: z.string().nullable().describe('null once the author was erased'),
        status: z.enum(['visible', 'hidden', 'deleted']),
        createdAt: z.iso.datetime(),
        reports: z.number().int(),
        openReports: z.number().int(),
      }),
    ),
    bans: z.array(
      z.object({
        userId: z.string(),
        until: z.iso.datetime().nullable(),
        reason: z.string().nullable().describe('null once the banned user was erased'),
      }),
    ),
    moderators: z.array(z.string()),
  })
  .meta({ id: 'ModerationReplay' });
