import { describe, expect, it } from 'vitest';
import { type ComplaintCommand, complaintDecider, complaintIdOf } from '../../src/commands/complaints.ts';
import type { ComplaintEvent } from '../../src/events/complaints.ts';
import { specFor } from '../support/decider.ts';

const given = specFor(complaintDecider);
const at = '2026-12-01T10:00:00.000Z';
const later = '2026-12-02T09:30:00.000Z';
const reason = { id: '0195e7a4-0000-7000-8000-0000000000c1', title: 'Rude operator' };
const attachment = {
  fileId: '0195e7a4-0000-7000-8000-0000000000f1',
  storageKey: 'chat/tag/key',
  name: 'screenshot.png',
  contentType: 'image/png',
  size: 1234,
};
const adminId = '0195e7a4-0000-7000-8000-0000000000ad';

const submission = {
  userId: 'ann',
  reason,
  text: 'The operator was rude.',
  conversationId: '215',
  attachments: [attachment],
  at,
};
const submit: ComplaintCommand = { type: 'submit', ...submission };
const submitted: ComplaintEvent = { type: 'complaintSubmitted', data: submission };
const resolve: ComplaintCommand = { type: 'resolve', adminId, note: 'Spoke to the team.', at: later };
const resolved: ComplaintEvent = {
  type: 'complaintResolved',
  data: { adminId, note: 'Spoke to the team.', at: later },
};

describe('submitting a complaint', () => {
  it('records what the user filed: reason with its title, text, targets and attachments', () => {
    given([]).when(submit).then([submitted]);
  });

  it('records only the targets given', () => {
    const bare = { userId: 'bob', reason, text: 'No target.', attachments: [], at };
    given([])
      .when({ type: 'submit', ...bare })
      .then([{ type: 'complaintSubmitted', data: bare }]);
  });

  it('is refused on a stream that holds a complaint already (409)', () => {
    given([submitted]).when(submit).thenRefuses('invalid_transition', { code: 'conflict' });
  });
});

describe('resolving a complaint', () => {
  it('resolves an open complaint with the admin and the note', () => {
    given([submitted]).when(resolve).then([resolved]);
  });

  it('resolves without a note', () => {
    given([submitted])
      .when({ type: 'resolve', adminId, at: later })
      .then([{ type: 'complaintResolved', data: { adminId, at: later } }]);
  });

  it('is refused when resolved already, so a second note is not lost silently (409)', () => {
    given([submitted, resolved])
      .when({ type: 'resolve', adminId: 'another', at: later })
      .thenRefuses('invalid_transition', { code: 'conflict', message: /resolved already/ });
  });

  it('is refused for a complaint that does not exist (404)', () => {
    given([]).when(resolve).thenRefuses('not_found');
  });
});

describe("a new complaint's id", () => {
  const context = (commandId: string) => ({
    actor: { type: 'user' as const, id: 'ann' },
    commandId,
    correlationId: 'r',
  });

  it('is the same for the same command id (a retried Idempotency-Key), another for another', () => {
    expect(complaintIdOf(context('key-1'))).toBe(complaintIdOf(context('key-1')));
    expect(complaintIdOf(context('key-1'))).not.toBe(complaintIdOf(context('key-2')));
    expect(complaintIdOf(context('key-1'))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab]/);
  });
});
