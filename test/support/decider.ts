import { expect } from 'vitest';
import { DomainError, type ProblemExtensions } from '../../src/lib/domain-error.ts';
import { type Decider, type DomainEvent, fold } from '../../src/commands/handler.ts';

/** What a refusal must also say, beyond its kind: each part is checked only when given. */
export interface ExpectedRefusal {
  /** The stable machine code (`conflict`, `comments_closed`, `user_banned`, `reaction_not_allowed`, …). */
  readonly code?: string;
  readonly message?: RegExp;
  /** The problem's extension members, exactly (`{ until: null }` for a ban until lifted). */
  readonly extensions?: ProblemExtensions;
}

/**
 * Given/when/then over a pure decider: no store, no I/O. Bind it as `given` in every spec:
 *
 *     const given = specFor(commentDecider);
 *     given([posted]).when(hide).then([hidden]);
 *     given([]).when(hide).thenRefuses('not_found');
 *     given([]).when(closed).thenRefuses('forbidden', { code: 'comments_closed' });
 */
export function specFor<Command, State, Event extends DomainEvent>(decider: Decider<Command, State, Event>) {
  return (history: readonly Event[]) => ({
    when: (command: Command) => ({
      /** The command is decided into exactly these events (none: it changes nothing). */
      then: (expected: readonly Event[]) => {
        expect(decider.decide(command, fold(decider, history))).toEqual(expected);
      },
      /** Refused with a DomainError of this kind (and, when given, this code, message and extensions). */
      thenRefuses: (kind: DomainError['kind'], expected: ExpectedRefusal = {}) => {
        // The history is folded outside the catch: only `decide` may refuse.
        const state = fold(decider, history);
        let decided: readonly Event[] | undefined;
        let refusal: unknown;
        try {
          decided = decider.decide(command, state);
        } catch (error) {
          refusal = error;
        }
        expect(decided, `the command should be refused (${kind}), but it was decided into`).toBeUndefined();
        expect(refusal, 'the refusal should be a DomainError').toBeInstanceOf(DomainError);
        const refused = refusal as DomainError;
        const { code, message, extensions } = refused;
        // One comparison, so a mismatch shows the whole refusal; what was not asked for matches anything.
        const wanted: Record<'kind' | keyof ExpectedRefusal, unknown> = {
          kind,
          code: expected.code ?? expect.any(String),
          message: expected.message ? expect.stringMatching(expected.message) : expect.any(String),
          extensions: expected.extensions ?? expect.anything(),
        };
        expect({ kind: refused.kind, code, message, extensions }).toEqual(wanted);
      },
    }),
  });
}
