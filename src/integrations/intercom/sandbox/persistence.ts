import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Records, SandboxState } from './state.ts';

// The sandbox's records in a file of their own, so that a second `npm start` shows the same chat history
// (decision 035). Loaded once at start, checked with zod; saved whole, atomically (a temporary file renamed
// over the old one), at most once per `delayMs` while changes come in, and once more on close.

/** Bumped when the stored shape changes in a way an older file cannot be read as. */
const FORMAT = 1;

// At most 15 digits: every id stays a safe integer, so the counters can go on after it.
const numericId = z.string().regex(/^\d{1,15}$/);
const contactId = z.string().regex(/^[0-9a-f]{24}$/);
const time = z.number().int().min(0);

const author = z.object({
  type: z.enum(['admin', 'user', 'bot']),
  id: z.string().min(1),
  name: z.string().nullable(),
  email: z.string().optional(),
});
const attachment = z.object({
  name: z.string(),
  url: z.string(),
  contentType: z.string(),
  filesize: z.number().int().min(0),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
});
const appliedTag = z.object({
  tagId: numericId,
  appliedAt: time,
  appliedBy: z.object({ type: z.enum(['admin', 'contact']), id: z.string().min(1) }),
});
const contact = z.object({
  id: contactId,
  externalId: z.string().nullable(),
  role: z.literal('user'),
  email: z.string().nullable(),
  name: z.string().nullable(),
  createdAt: time,
  updatedAt: time,
  archived: z.boolean(),
  tags: z.array(appliedTag),
  noteIds: z.array(numericId),
  // Absent in files saved before the sandbox kept custom attributes: those read as none.
  customAttributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  searchableFrom: z.number().min(0),
});
const note = z.object({
  id: numericId,
  contactId,
  adminId: z.string().min(1),
  body: z.string(),
  createdAt: time,
});
const partBase = {
  id: numericId,
  partType: z.string().min(1),
  body: z.string().nullable(),
  createdAt: time,
  author,
  attachments: z.array(attachment),
};
const conversationState = z.enum(['open', 'closed', 'snoozed']);
const conversation = z.object({
  id: numericId,
  contactId,
  createdAt: time,
  updatedAt: time,
  state: conversationState,
  snoozedUntil: time.nullable(),
  waitingSince: time.nullable(),
  read: z.boolean(),
  adminAssigneeId: z.number().int().nullable(),
  tags: z.array(appliedTag),
  source: z.object({
    id: numericId,
    body: z.string().nullable(),
    createdAt: time,
    author,
    attachments: z.array(attachment),
  }),
  parts: z.array(z.object({ ...partBase, state: conversationState })),
});
const ticketCategory = z.enum(['submitted', 'in_progress', 'waiting_on_customer', 'resolved']);
const ticket = z.object({
  id: numericId,
  ticketNumber: numericId,
  contactId,
  title: z.string(),
  description: z.string().nullable(),
  category: ticketCategory,
  externalLabel: z.string(),
  createdAt: time,
  updatedAt: time,
  parts: z.array(
    z.object({
      ...partBase,
      ticketState: ticketCategory.optional(),
      previousTicketState: ticketCategory.optional(),
    }),
  ),
  tags: z.array(appliedTag),
});

const storedSchema = z.object({
  format: z.literal(FORMAT),
  savedAt: z.iso.datetime(),
  counters: z.object({ lastId: z.number().int().min(0), lastTicketNumber: z.number().int().min(0) }),
  contacts: z.array(contact),
  conversations: z.array(conversation),
  tickets: z.array(ticket),
  tags: z.array(z.object({ id: numericId, name: z.string() })),
  notes: z.array(note),
});
type Stored = z.infer<typeof storedSchema>;

/** What the sandbox reports about its file: where it is, and what went wrong (never a record's content). */
export type PersistenceLogger = Pick<Logger, 'info' | 'warn'>;

/**
 * The records saved in `file`, or null when there is none. A file that is not JSON, or not the shape this
 * version writes, is renamed to `<file>.corrupt-<time>` and the sandbox starts empty, with a warning: a
 * development fake must not keep the service from starting.
 */
export async function loadRecords(file: string, logger: PersistenceLogger): Promise<Records | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return moveAside(file, logger, `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the file, which holds chat messages: say only what kind of failure it was.
    return moveAside(file, logger, 'not JSON');
  }
  const parsed = storedSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.code}`);
    return moveAside(file, logger, `not the stored shape (${issues.join('; ')})`);
  }
  return recordsOf(parsed.data);
}

/** Ids continue after the highest one stored, whatever the counters say (a file edited by hand). */
function recordsOf(stored: Stored): Records {
  const numeric = [
    ...stored.contacts.flatMap((c) => c.noteIds),
    ...stored.conversations.flatMap((c) => [c.id, c.source.id, ...c.parts.map((part) => part.id)]),
    ...stored.tickets.flatMap((t) => [t.id, ...t.parts.map((part) => part.id)]),
    ...stored.tags.map((tag) => tag.id),
    ...stored.notes.map((n) => n.id),
  ].map(Number);
  const ticketNumbers = stored.tickets.map((t) => Number(t.ticketNumber));
  return {
    counters: {
      // A loop, not Math.max(...ids): a spread of 100,000+ ids overflows the call stack.
      lastId: numeric.reduce((most, id) => Math.max(most, id), stored.counters.lastId),
      lastTicketNumber: ticketNumbers.reduce(
        (most, n) => Math.max(most, n),
        stored.counters.lastTicketNumber,
      ),
    },
    contacts: stored.contacts,
    conversations: stored.conversations,
    tickets: stored.tickets,
    tags: stored.tags,
    notes: stored.notes,
  };
}

async function moveAside(file: string, logger: PersistenceLogger, reason: string): Promise<null> {
  const movedTo = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await rename(file, movedTo);
  logger.warn(
    { file, movedTo, reason },
    'the Intercom sandbox could not load its records: the file is moved aside and the sandbox starts empty',
  );
  return null;
}

/** What a save writes: the stored shape, straight from the state's records. */
interface Snapshot extends Records {
  readonly format: typeof FORMAT;
  readonly savedAt: string;
}

function snapshot(state: SandboxState): Snapshot {
  return {
    format: FORMAT,
    savedAt: new Date().toISOString(),
    counters: state.counters(),
    contacts: [...state.contacts.values()],
    conversations: [...state.conversations.values()],
    tickets: [...state.tickets.values()],
    tags: [...state.tags.values()],
    notes: [...state.notes.values()],
  };
}

export interface RecordsFile {
  /** A record changed: saves within `delayMs`, once for every change made meanwhile. */
  readonly changed: () => void;
  /** Saves now what changed, and waits for any save under way. */
  flush(): Promise<void>;
  /** The last flush; later changes are not saved. */
  close(): Promise<void>;
}

export interface RecordsFileOptions {
  readonly file: string;
  /** The longest a change waits to be saved (the most a crash loses). */
  readonly delayMs: number;
  readonly logger: PersistenceLogger;
}

/** Keeps `state` in `file`. Call `bind` with the state once it exists (its changes call `changed`). */
export function recordsFile({ file, delayMs, logger }: RecordsFileOptions): RecordsFile & {
  bind(state: SandboxState): void;
} {
  let state: SandboxState | null = null;
  let dirty = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  let failing = false;

  async function write(text: string): Promise<void> {
    const temporary = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, file);
      if (failing) logger.info({ file }, 'the Intercom sandbox saves its records again');
      failing = false;
    } catch (error) {
      dirty = true;
      await rm(temporary, { force: true }).catch(() => undefined);
      // Once per run of failures, not once per change.
      if (!failing) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        logger.warn({ file, code }, 'the Intercom sandbox could not save its records; it keeps trying');
      }
      failing = true;
    }
  }

  /** One save at a time, in order; each writes the records as they are when it starts. */
  function save(): Promise<void> {
    timer = null;
    if (!dirty || !state) return writing;
    const current = state;
    writing = writing.then(() => {
      if (!dirty) return;
      dirty = false;
      return write(JSON.stringify(snapshot(current)));
    });
    return writing;
  }

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    await save();
  }

  return {
    bind(given) {
      state = given;
    },
    changed: () => {
      dirty = true;
      if (closed || timer) return;
      timer = setTimeout(() => void save(), delayMs);
      // The close flushes; a pending save must not keep a process alive on its own.
      timer.unref();
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
  };
}
