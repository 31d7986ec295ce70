import { expect } from 'vitest';
import { type Decider, type DomainEvent, fold } from '../../src/commands/handler.ts';

/** Given/when/then over a pure decider: no store, no I/O. */
export function specFor<Command, State, Event extends DomainEvent>(decider: Decider<Command, State, Event>) {
  return (given: readonly Event[]) => ({
    when: (command: Command) => ({
      then: (expected: readonly Event[]) => {
        expect(decider.decide(command, fold(decider, given))).toEqual(expected);
      },
    }),
  });
}
