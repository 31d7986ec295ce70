/**
 * A clock the test moves, for code that takes `now` and `sleep`: a sleep ends only when the clock is moved
 * past its end. What waited, and until when, is read off the clock instead of timed.
 */
export class ManualClock {
  private at: number;
  private readonly sleepers: { readonly until: number; readonly wake: () => void }[] = [];
  /** Every sleep asked for, in ms, in order. */
  readonly slept: number[] = [];

  constructor(start: number) {
    this.at = start;
  }

  readonly now = (): number => this.at;

  readonly sleep = (ms: number): Promise<void> => {
    this.slept.push(ms);
    return new Promise<void>((wake) => {
      this.sleepers.push({ until: this.at + ms, wake });
      this.wakeDue();
    });
  };

  /** Sleeps not yet over. */
  get sleeping(): number {
    return this.sleepers.length;
  }

  /** When the sleeps not yet over end, soonest first. */
  get wakes(): number[] {
    return this.sleepers.map((s) => s.until).sort((a, b) => a - b);
  }

  /** Moves the clock on by `ms`, ending every sleep that is over by then. */
  advance(ms: number): void {
    this.at += ms;
    this.wakeDue();
  }

  private wakeDue(): void {
    const due = this.sleepers.filter((s) => s.until <= this.at);
    for (const sleeper of due) {
      this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
      sleeper.wake();
    }
  }
}
