import { z } from 'zod';
import type { DomainEvent, EventCodec } from './codec.ts';
import { type RecordedEvent, streamName } from './envelope.ts';

/** One stream per channel: `channel-<channelId>`. */
export const CHANNELS_CATEGORY = 'channel';
export const channelStream = (channelId: string): string => streamName(CHANNELS_CATEGORY, channelId);
export const channelOfStream = (stream: string): string => stream.slice(CHANNELS_CATEGORY.length + 1);

export const MAX_REACTIONS = 12;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
// Emoji strings are at most 32 code units (the schema's max), so counting every segment is cheap.
const isOneGrapheme = (text: string): boolean => Array.from(graphemes.segment(text)).length === 1;

/** One emoji (one grapheme of pictographic characters with their modifiers and joiners), as clients send it. */
export const emojiSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(
    /^\p{Extended_Pictographic}[\u{FE0F}\u{200D}\p{Emoji_Modifier}\p{Extended_Pictographic}]*$/u,
    'must be one emoji',
  )
  .refine(isOneGrapheme, 'must be one emoji');

/** How fast one user may comment in this channel (slow mode): `burst` at once, then one per `intervalSeconds`. */
export const commentRateSchema = z.object({
  intervalSeconds: z.number().int().min(1).max(3600),
  burst: z.number().int().min(1).max(100),
});

export const channelSettingsSchema = z.object({
  title: z.string().min(1).max(100),
  description: z.string().max(1000),
  avatarUrl: z.url({ protocol: /^https$/ }).nullable(),
  allowedReactions: z.array(emojiSchema).max(MAX_REACTIONS),
  commentsEnabled: z.boolean(),
  commentRate: commentRateSchema,
  /** Distinct reports that hide a comment until a moderator looks at it. */
  autoHideReports: z.number().int().min(1).max(1000),
});

export const DEFAULT_AUTO_HIDE_REPORTS = 3;
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;

const instant = z.iso.datetime();

export const channelCreated = z.object({
  type: z.literal('channelCreated'),
  // Channels created before the report rule existed read as having its default.
  data: channelSettingsSchema.extend({
    autoHideReports: channelSettingsSchema.shape.autoHideReports.default(DEFAULT_AUTO_HIDE_REPORTS),
    at: instant,
  }),
});
export const channelEdited = z.object({
  type: z.literal('channelEdited'),
  // Only what changed.
  data: channelSettingsSchema.partial().extend({ at: instant }),
});

export const channelEventSchema = z.discriminatedUnion('type', [channelCreated, channelEdited]);
export type ChannelEvent = z.infer<typeof channelEventSchema> & DomainEvent;

export const channelCodec: EventCodec<ChannelEvent> = {
  parse: (recorded: RecordedEvent) => channelEventSchema.parse({ type: recorded.type, data: recorded.data }),
  schemaVersion: () => 1,
};
