import { expect } from 'vitest';
import { DomainError } from '../../src/lib/domain-error.ts';
import { type Decider, type DomainEvent, fold } from '../../src/commands/handler.ts';

/** Given/when/then over a pure decider: no store, no I/O. */
export function specFor<Command, State, Event extends DomainEvent>(decider: Decider<Command, State, Event>) {
  return (given: readonly Event[]) => ({
    when: (command: Command) => ({
      then: (expected: readonly Event[]) => {
        expect(decider.decide(command, fold(decider, given))).toEqual(expected);
      },
      /** The command is refused with a DomainError of this kind (and a message matching `message`). */
      thenRefuses: (kind: DomainError['kind'], message?: RegExp) => {
        let refusal: unknown;
        try {
          decider.decide(command, fold(decider, given));
        } catch (error) {
          refusal = error;
        }
        expect(refusal).toBeInstanceOf(DomainError);
        expect((refusal as DomainError).kind).toBe(kind);
        if (message) expect((refusal as DomainError).message).toMatch(message);
      },
    }),
  });
}
