import { writeContactTelemetry } from '../chat/contact-telemetry.ts';
import { contactOfUser } from '../chat/user-contacts.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { IntercomClient } from '../integrations/intercom/client.ts';
import type { ComplaintNotesPort } from '../processors/complaint-notes.ts';
import type { ContactTelemetryPort } from '../processors/contact-telemetry.ts';
import type { CsatNotesPort } from '../processors/csat-notes.ts';

// The processors' notes at Intercom (spec rule 3: best effort), over the support services' client. The
// processors start with event sourcing, before the support services: until those run, a call throws and
// the processor runner tries again with backoff.

/** The Intercom client once the support services run. */
export type IntercomOnceStarted = () => IntercomClient;

export function intercomOnceStarted(): {
  readonly get: IntercomOnceStarted;
  set(client: IntercomClient): void;
} {
  let client: IntercomClient | undefined;
  return {
    get: () => {
      if (client === undefined) throw new Error('the support services have not started yet');
      return client;
    },
    set: (started) => {
      client = started;
    },
  };
}

/** The admin the app writes as (`GET /me`), asked once per process. */
function appAdmin(intercom: IntercomOnceStarted): () => Promise<string> {
  let id: Promise<string> | undefined;
  return () => {
    id ??= intercom()
      .me()
      .then((me) => me.id)
      .catch((error: unknown) => {
        id = undefined;
        throw error;
      });
    return id;
  };
}

const notesOf = (parts: readonly { part_type: string; body?: string | null }[]) =>
  parts.filter((part) => part.part_type === 'note').map((part) => part.body ?? '');

export function intercomCsatNotes(intercom: IntercomOnceStarted): CsatNotesPort {
  const adminId = appAdmin(intercom);
  const tagId = async (name: string) => (await intercom().createTag(name)).id;
  return {
    conversationNotes: async (id) =>
      notesOf((await intercom().getConversation(id)).conversation_parts.conversation_parts),
    noteOnConversation: async (id, body) => {
      await intercom().addConversationNote(id, body, await adminId());
    },
    tagConversation: async (id, name) => {
      await intercom().tagConversation(id, await tagId(name), await adminId());
    },
    ticketNotes: async (id) => notesOf((await intercom().getTicket(id)).ticket_parts?.ticket_parts ?? []),
    noteOnTicket: async (id, body) => {
      await intercom().addTicketNote(id, body, await adminId());
    },
    tagTicket: async (id, name) => {
      await intercom().tagTicket(id, await tagId(name), await adminId());
    },
  };
}

export function intercomComplaintNotes(
  pool: DatabasePool,
  intercom: IntercomOnceStarted,
): ComplaintNotesPort {
  const adminId = appAdmin(intercom);
  return {
    contactOf: (userId) => contactOfUser(pool, userId),
    noteOnContact: async (contactId, body) => intercom().addContactNote(contactId, body, await adminId()),
  };
}

export function intercomContactTelemetry(
  pool: DatabasePool,
  intercom: IntercomOnceStarted,
): ContactTelemetryPort {
  return {
    write: (userId, telemetry) => writeContactTelemetry({ pool, intercom: intercom() }, userId, telemetry),
  };
}
