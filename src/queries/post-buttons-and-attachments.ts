import { sql } from 'slonik';
import { z } from 'zod';

/** A post's attachments as a JSON array beside each post row (`p`), in their order. */
const attachmentsColumn = (withStorageKeys: boolean) => sql.fragment`
  COALESCE((SELECT json_agg(json_build_object('id', a.id, 'kind', a.kind, 'contentType', a.content_type,
      'size', a.size, 'width', a.width, 'height', a.height, 'durationMs', a.duration_ms
      ${withStorageKeys ? sql.fragment`, 'storageKey', a.storage_key` : sql.fragment``}) ORDER BY a.position)
    FROM post_attachments a WHERE a.post_id = p.id), '[]') AS attachments`;

const buttonsColumn = sql.fragment`
  COALESCE((SELECT json_agg(json_build_object('id', b.id, 'label', b.label, 'url', b.url) ORDER BY b.position)
    FROM post_buttons b WHERE b.post_id = p.id), '[]') AS buttons`;

/** A post's buttons and attachments, in their order, as JSON arrays beside each post row (`p`). */
export const buttonsAndAttachmentsColumns = sql.fragment`${buttonsColumn}, ${attachmentsColumn(false)}`;

const attachment = z.object({
  id: z.string(),
  kind: z.enum(['image', 'video', 'file']),
  contentType: z.string(),
  size: z.coerce.number(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  durationMs: z.number().nullable(),
});

export const buttonsAndAttachmentsRow = {
  buttons: z.array(z.object({ id: z.string(), label: z.string(), url: z.string() })),
  attachments: z.array(attachment),
};

/** The same with where each attachment's bytes are, for the signed links of the feed (never shown). */
export const buttonsAndStoredAttachmentsColumns = sql.fragment`${buttonsColumn}, ${attachmentsColumn(true)}`;
export const buttonsAndStoredAttachmentsRow = {
  buttons: buttonsAndAttachmentsRow.buttons,
  attachments: z.array(attachment.extend({ storageKey: z.string() })),
};
