import {
  COMPLAINTS_CATEGORY,
  complaintCodec,
  complaintOfStream,
  type ComplaintSubmittedData,
} from '../events/complaints.ts';
import type { Processor } from './processor.ts';
import { providerFailure } from './provider-failure.ts';
import { escapeHtml } from '../lib/escape-html.ts';

/**
 * What the complaint notes need of the support side; the wiring fills it from `user_contacts` and the
 * Intercom client.
 */
export interface ComplaintNotesPort {
  /** The user's provider contact if the mapping has one; never creates one (a read of `user_contacts`). */
  contactOf(userId: string): Promise<string | null>;
  /**
   * Writes an internal note (HTML) on the contact. A failure should be the provider client's error: its
   * `kind` and `retryAfterMs` steer the retries (see `failure`).
   */
  noteOnContact(contactId: string, body: string): Promise<unknown>;
}

/**
 * The note: the reason's title, what the complaint is about, and the complaint's id (the team's way into
 * the panel, and how a rare repeated note is recognised). Never the complaint's text: the service is its
 * canonical store (spec rule 3), and a note is read by every teammate, the one complained about included.
 */
export function complaintNote(complaintId: string, complaint: ComplaintSubmittedData): string {
  const about = [
    complaint.conversationId === undefined ? null : `conversation ${complaint.conversationId}`,
    complaint.ticketId === undefined ? null : `ticket ${complaint.ticketId}`,
  ].filter((part) => part !== null);
  return [
    `<p>The user filed a complaint in the app: <b>${escapeHtml(complaint.reason.title)}</b>.</p>`,
    about.length === 0 ? '' : `<p>About ${escapeHtml(about.join(' and '))}.</p>`,
    `<p>Complaint ${escapeHtml(complaintId)}: its text is in the admin panel.</p>`,
  ].join('');
}

/**
 * A best-effort note at the support provider for each complaint filed (spec rule 3): the complaint's 201
 * never waits for it. A user without a contact has never written to support, so there is nothing to note
 * on, and no contact is made just for this. Intercom takes no idempotency key for notes: after a crash
 * or a lost answer the runner's repeat may write the note twice, which names the same complaint. A
 * complaint whose user was erased gets no note.
 */
export function complaintNotesProcessor(port: ComplaintNotesPort): Processor {
  return {
    name: 'complaint-notes',
    categories: [COMPLAINTS_CATEGORY],
    handles: ['complaintSubmitted'],
    async process(recorded, context) {
      const event = complaintCodec.parse(recorded);
      if (event.type !== 'complaintSubmitted') return;
      // Erased before its note went (decision 048): the note would point at text the panel no longer
      // holds, on the contact of a user the erasure is removing.
      if (event.data.text === null) {
        context.logger.info('complaint not noted at the provider: its user was erased');
        return;
      }
      const contactId = await port.contactOf(event.data.userId);
      if (contactId === null) {
        context.logger.info('complaint not noted at the provider: the user has no contact');
        return;
      }
      const body = complaintNote(complaintOfStream(recorded.streamName), event.data);
      try {
        await port.noteOnContact(contactId, body);
      } catch (error) {
        throw providerFailure('complaint note not written', error);
      }
    },
  };
}
