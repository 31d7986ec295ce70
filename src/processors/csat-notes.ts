import { CSAT_CATEGORY, type CsatTargetType, csatCodec } from '../events/csat.ts';
import type { Processor } from './processor.ts';
import { providerFailure } from './provider-failure.ts';

/**
 * What a CSAT note needs of the support provider, per kind of target; the wiring fills it from the
 * Intercom client. A failure should be the client's own error: its `kind` and `retryAfterMs` steer the
 * retries (see `failure`).
 */
export interface CsatNotesPort {
  /** The bodies of the conversation's internal notes (the newest parts the provider answers). */
  conversationNotes(conversationId: string): Promise<readonly string[]>;
  noteOnConversation(conversationId: string, body: string): Promise<void>;
  /** Creates the tag when missing; tagging twice keeps one tag. */
  tagConversation(conversationId: string, tagName: string): Promise<void>;
  ticketNotes(ticketId: string): Promise<readonly string[]>;
  noteOnTicket(ticketId: string, body: string): Promise<void>;
  tagTicket(ticketId: string, tagName: string): Promise<void>;
}

/**
 * The note: the stars and the event's id, which is how a repeated delivery finds it. The user's comment is
 * left out on purpose (decision 029): it stays where `csat.read` guards it. So an erased user's rating,
 * whose comment reads as null (decision 048), is noted like any other: the stars stay in the counts too.
 */
export const csatNote = (rating: number, eventId: string): string => `CSAT ${rating}/5 (ref ${eventId})`;
export const csatTag = (rating: number): string => `csat-${rating}`;

function targetCalls(port: CsatNotesPort, type: CsatTargetType) {
  return type === 'conversation'
    ? {
        notes: (id: string) => port.conversationNotes(id),
        note: (id: string, body: string) => port.noteOnConversation(id, body),
        tag: (id: string, name: string) => port.tagConversation(id, name),
      }
    : {
        notes: (id: string) => port.ticketNotes(id),
        note: (id: string, body: string) => port.noteOnTicket(id, body),
        tag: (id: string, name: string) => port.tagTicket(id, name),
      };
}

/**
 * Spec rule 3: a rating is ours (`csat_ratings`), and a best-effort note and tag (`csat-<n>`) also go to the
 * rated conversation or ticket at the provider, after the 201, never delaying it. Delivered at least once,
 * so each attempt first looks for a note carrying the event's id: an attempt whose answer was lost after
 * the note landed does not write a second one. Tags need no such check.
 */
export function csatNotesProcessor(port: CsatNotesPort): Processor {
  return {
    name: 'csat-notes',
    categories: [CSAT_CATEGORY],
    handles: ['csatRated'],
    // Ratings given before the processor was first wired get their note too: they are few, and the
    // provider's budget paces a backlog.
    startFrom: 'beginning',
    async process(recorded, context) {
      const { targetType, targetId, rating } = csatCodec.parse(recorded).data;
      const calls = targetCalls(port, targetType);
      const eventId = context.idempotencyKey;
      try {
        const notes = await calls.notes(targetId);
        if (!notes.some((body) => body.includes(eventId)))
          await calls.note(targetId, csatNote(rating, eventId));
        await calls.tag(targetId, csatTag(rating));
      } catch (error) {
        throw providerFailure('csat note not written', error);
      }
      context.logger.debug({ targetType, targetId }, 'csat note and tag written');
    },
  };
}
