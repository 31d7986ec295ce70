import { type CommonQueryMethods, sql } from 'slonik';
import type { RecordedEvent } from '../events/envelope.ts';
import {
  COMPLAINTS_CATEGORY,
  complaintOfStream,
  complaintResolved,
  complaintSubmitted,
  type ComplaintSubmittedData,
} from '../events/complaints.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import type { Projection, Tables } from './projection.ts';

type ComplaintTable = 'complaints' | 'complaint_attachments';

type Submission = ComplaintSubmittedData & { readonly id: string };
type Attachment = Submission['attachments'][number] & { readonly id: string; readonly position: number };
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
 * (each run of it between erasures) is two inserts and one update whatever its size: every submission goes
 * in first, then every resolution, which gives the same rows as applying them one by one because a
 * resolution only ever follows its own complaint's submission.
 *
 * An erased user's complaints stay, counted by status and reason, without their user, text or attachments
 * (decision 048); a rebuild finds their text erased (null) and stores them so at once.
 */
export const complaintsProjection: Projection<ComplaintTable> = {
  name: 'complaints',
  // 2: user_id, text and attachment names nullable (erasure).
  version: 2,
  categories: [COMPLAINTS_CATEGORY, ERASURES],
  // No gathering: the submitting and resolving routes wait for this projection.
  gatherMs: 0,
  tables: ['complaints', 'complaint_attachments'],

  async createTables(db, tables) {
    const { complaints, complaint_attachments: attachments } = tables;
    await db.query(sql.unsafe`
      CREATE TABLE ${complaints} (
        id uuid PRIMARY KEY,
        user_id text,
        reason_id uuid NOT NULL,
        reason_title text NOT NULL,
        text text,
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
        name text,
        content_type text NOT NULL,
        size bigint NOT NULL,
        PRIMARY KEY (complaint_id, position)
      )`);
  },

  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => applyComplaintEvents(db, run, tables),
      (users) => eraseComplaints(db, users, tables),
    );
  },
};

/** The users' complaints lose their user and text, and their attachment rows (the erasure deletes the files). */
async function eraseComplaints(
  db: CommonQueryMethods,
  users: readonly string[],
  { complaints, complaint_attachments: attachments }: Tables<ComplaintTable>,
): Promise<void> {
  await db.query(sql.unsafe`
    WITH erased AS (
      UPDATE ${complaints} SET user_id = NULL, text = NULL WHERE user_id = ANY (${text(users)}) RETURNING id
    )
    DELETE FROM ${attachments} WHERE complaint_id IN (SELECT id FROM erased)`);
}

async function applyComplaintEvents(
  db: CommonQueryMethods,
  events: readonly RecordedEvent[],
  { complaints, complaint_attachments: attachments }: Tables<ComplaintTable>,
): Promise<void> {
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
    // Text erased: the user was, so the row is stored as their erasure leaves it.
    await db.query(sql.unsafe`
      INSERT INTO ${complaints}
        (id, user_id, reason_id, reason_title, text, conversation_id, ticket_id, status, created_at)
      SELECT i::uuid, u, r::uuid, rt, t, c, k, 'open', at::timestamptz
      FROM unnest(${column((s) => s.id)}, ${column((s) => (s.text === null ? null : s.userId))},
        ${column((s) => s.reason.id)}, ${column((s) => s.reason.title)}, ${column((s) => s.text)},
        ${column((s) => s.conversationId ?? null)}, ${column((s) => s.ticketId ?? null)},
        ${column((s) => s.at)}) AS x (i, u, r, rt, t, c, k, at)`);
  }
  const files: Attachment[] = submitted
    .filter((s) => s.text !== null)
    .flatMap((s) => s.attachments.map((a, position) => ({ ...a, id: s.id, position })));
  if (files.length > 0) {
    const column = (pick: (f: Attachment) => string | null) => text(files.map(pick));
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
}
