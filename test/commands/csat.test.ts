import { describe, it } from 'vitest';
import { type RateCommand, csatDecider } from '../../src/commands/csat.ts';
import type { CsatEvent } from '../../src/events/csat.ts';
import { specFor } from '../support/decider.ts';

// One target's stream: the rating of one conversation or ticket, given once.
const given = specFor(csatDecider);
const T0 = '2026-12-01T10:00:00.000Z';
const T1 = '2026-12-01T11:00:00.000Z';
const firstId = '0195e7a4-0000-7000-8000-0000000000a1';
const newId = '0195e7a4-0000-7000-8000-0000000000a2';

type About = Partial<Omit<RateCommand, 'userId' | 'targetId'>>;
/** By default: Ann rates her closed conversation 4 with a comment. */
const rate = (about: About = {}): RateCommand => ({
  ratingId: newId,
  userId: 'ann',
  targetType: 'conversation',
  targetId: '123',
  rating: 4,
  comment: 'Quick and kind',
  at: T1,
  targetEnded: true,
  ...about,
});

type Rating = Partial<Pick<CsatEvent['data'], 'ratingId' | 'targetType' | 'rating' | 'comment' | 'at'>>;
const rated = (about: Rating = {}): CsatEvent => ({
  type: 'csatRated',
  data: {
    ratingId: newId,
    userId: 'ann',
    targetType: 'conversation',
    targetId: '123',
    rating: 4,
    comment: 'Quick and kind',
    at: T1,
    ...about,
  },
});
/** The rating the stream holds already. */
const standing = (rating = 4) => rated({ ratingId: firstId, rating, at: T0, comment: null });

describe('rating a conversation or ticket', () => {
  it('records the rating with its comment, user, target and instant', () => {
    given([]).when(rate()).then([rated()]);
  });

  it('records a rating without a comment as null', () => {
    given([])
      .when(rate({ comment: null }))
      .then([rated({ comment: null })]);
  });

  it('records a resolved ticket and every star from 1 to 5', () => {
    given([])
      .when(rate({ targetType: 'ticket', rating: 1 }))
      .then([rated({ targetType: 'ticket', rating: 1 })]);
    given([])
      .when(rate({ rating: 5 }))
      .then([rated({ rating: 5 })]);
  });

  it('is refused while the conversation is open or snoozed, or the ticket not resolved (409 conflict)', () => {
    given([])
      .when(rate({ targetEnded: false }))
      .thenRefuses('invalid_transition', { code: 'conflict', message: /once it is closed/ });
    given([])
      .when(rate({ targetType: 'ticket', targetEnded: false }))
      .thenRefuses('invalid_transition', { code: 'conflict', message: /once it is resolved/ });
  });
});

describe('rating a target rated already', () => {
  it('with the same rating changes nothing, whatever the comment', () => {
    given([standing(4)])
      .when(rate())
      .then([]);
    given([standing(4)])
      .when(rate({ comment: 'Changed my mind about the words' }))
      .then([]);
  });

  it('with the same rating changes nothing even after the request was reopened', () => {
    given([standing(4)])
      .when(rate({ targetEnded: false }))
      .then([]);
  });

  it('with another rating is refused (409 already_rated), open or not', () => {
    given([standing(4)])
      .when(rate({ rating: 5 }))
      .thenRefuses('invalid_transition', { code: 'already_rated', message: /rated already/ });
    given([standing(2)])
      .when(rate({ rating: 1, targetEnded: false }))
      .thenRefuses('invalid_transition', { code: 'already_rated' });
  });
});
