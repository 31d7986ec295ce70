import { sql } from 'slonik';
import { z } from 'zod';

/** A post's buttons and attachments, in their order, as JSON arrays beside each post row (`p`). */
export const buttonsAndAttachmentsColumns = sql.fragment`
  COALESCE((SELECT json_agg(json_build_object('id', b.id, 'label', b.label, 'url', b.url) ORDER BY b.position)
    FROM post_buttons b WHERE b.post_id = p.id), '[]') AS buttons,
  COALESCE((SELECT json_agg(json_build_object('id', a.id, 'kind', a.kind, 'contentType', a.content_type,
      'size', a.size, 'width', a.width, 'height', a.height, 'durationMs', a.duration_ms) ORDER BY a.position)
    FROM post_attachments a WHERE a.post_id = p.id), '[]') AS attachments`;

export const buttonsAndAttachmentsRow = {
  buttons: z.array(z.object({ id: z.string(), label: z.string(), url: z.string() })),
  attachments: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['image', 'video', 'file']),
      contentType: z.string(),
      size: z.coerce.number(),
      width: z.number().nullable(),
      height: z.number().nullable(),
      durationMs: z.number().nullable(),
    }),
  ),
};
