import { sql } from 'slonik';
import {
  COMPLAINTS_CATEGORY,
  complaintOfStream,
  complaintResolved,
  complaintSubmitted,
  type ComplaintSubmittedData,
} from '../events/complaints.ts';
import type { Projection } from './projection.ts';

type ComplaintTable = 'complaints' | 'complaint_attachments';

type Submission = ComplaintSubmittedData & { readonly id: string };
interface Resolution {
  readonly id: string;
  readonly adminId: string;
  readonly note: string | null;
  readonly at: string;
}

const text = (values: readonly (string | null)[]) => sql.array([...values], 'text');

/**
 * What users and admins read of complaints: `complaints` (one row per complaint, its resolution on it) and
 * `complaint_attachments` (the files attached, in the order given). Complaints come a few a day, so a batch
 * is two inserts and one update whatever its size: every submission goes in first, then every resolution,
 * which gives the same rows as applying them one by one because a resolution only ever follows its own
 * complaint's submission.
 */
export const complaintsProjection: Projection<ComplaintTable> = {
  name: 'complaints',
  version: 1,
  categories: [COMPLAINTS_CATEGORY],
  // No gathering: the submitting and resolving routes wait for this projection.
  gatherMs: 0,
  tables: ['complaints', 'complaint_attachments'],

  async createTables(db, tables) {
    const { complaints, complaint_attachments: attachments } = tables;
    await db.query(sql.unsafe`
      CREATE TABLE ${complaints} (
        id uuid PRIMARY KEY,
        user_id text NOT NULL,
        reason_id uuid NOT NULL,
        reason_title text NOT NULL,
        text text NOT NULL,
        conversation_id text,
        ticket_id text,
        status text NOT NULL,
        created_at timestamptz NOT NULL,
        resolved_at timestamptz,
        resolved_by text,
        resolution_note text
      )`);
    // The user's own list, and the admin list with and without its status filter (newest first).
    await db.query(sql.unsafe`CREATE INDEX ON ${complaints} (user_id, created_at DESC, id DESC)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${complaints} (created_at DESC, id DESC)`);
    await db.query(sql.unsafe`CREATE INDEX ON ${complaints} (status, created_at DESC, id DESC)`);
    await db.query(sql.unsafe`
      CREATE TABLE ${attachments} (
        complaint_id uuid NOT NULL,
        position integer NOT NULL,
        file_id uuid NOT NULL,
        storage_key text NOT NULL,
        name text NOT NULL,
        content_type text NOT NULL,
        size bigint NOT NULL,
        PRIMARY KEY (complaint_id, position)
      )`);
  },

  async apply(db, events, { complaints, complaint_attachments: attachments }) {
    const submitted: Submission[] = [];
    const resolved: Resolution[] = [];
    for (const recorded of events) {
      const id = complaintOfStream(recorded.streamName);
      if (recorded.type === 'complaintSubmitted') {
        submitted.push({ id, ...complaintSubmitted.shape.data.parse(recorded.data) });
      } else if (recorded.type === 'complaintResolved') {
        const { adminId, note, at } = complaintResolved.shape.data.parse(recorded.data);
        resolved.push({ id, adminId, note: note ?? null, at });
      } else {
        // An event this version does not know: stop here rather than skip it (decision 008).
        throw new Error(`unknown complaint event type ${recorded.type}`);
      }
    }
    if (submitted.length > 0) {
      const column = (pick: (s: Submission) => string | null) => text(submitted.map(pick));
      await db.query(sql.unsafe`
        INSERT INTO ${complaints}
          (id, user_id, reason_id, reason_title, text, conversation_id, ticket_id, status, created_at)
        SELECT i::uuid, u, r::uuid, rt, t, c, k, 'open', at::timestamptz
        FROM unnest(${column((s) => s.id)}, ${column((s) => s.userId)}, ${column((s) => s.reason.id)},
          ${column((s) => s.reason.title)}, ${column((s) => s.text)}, ${column((s) => s.conversationId ?? null)},
          ${column((s) => s.ticketId ?? null)}, ${column((s) => s.at)}) AS x (i, u, r, rt, t, c, k, at)`);
    }
    const files = submitted.flatMap((s) =>
      s.attachments.map((a, position) => ({ id: s.id, position, ...a })),
    );
    if (files.length > 0) {
      const column = (pick: (f: (typeof files)[number]) => string) => text(files.map(pick));
      await db.query(sql.unsafe`
        INSERT INTO ${attachments} (complaint_id, position, file_id, storage_key, name, content_type, size)
        SELECT i::uuid, p::int, f::uuid, k, n, ct, s::bigint
        FROM unnest(${column((f) => f.id)}, ${column((f) => String(f.position))}, ${column((f) => f.fileId)},
          ${column((f) => f.storageKey)}, ${column((f) => f.name)}, ${column((f) => f.contentType)},
          ${column((f) => String(f.size))}) AS x (i, p, f, k, n, ct, s)`);
    }
    if (resolved.length > 0) {
      // The decider resolves a complaint once, so each id appears at most once here.
      const column = (pick: (r: Resolution) => string | null) => text(resolved.map(pick));
      await db.query(sql.unsafe`
        UPDATE ${complaints} c
        SET status = 'resolved', resolved_at = x.at::timestamptz, resolved_by = x.a, resolution_note = x.n
        FROM unnest(${column((r) => r.id)}, ${column((r) => r.adminId)}, ${column((r) => r.note)},
          ${column((r) => r.at)}) AS x (i, a, n, at)
        WHERE c.id = x.i::uuid`);
    }
  },
};
