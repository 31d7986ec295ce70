import type { Logger } from 'pino';

/**
 * What a process started, newest on top: each part is pushed right after it starts, so `stopAll` stops
 * them in the reverse order of their start. main.ts and `startService` both stop through one.
 */
export interface StopStack {
  /** Records a part that has just started, and how to stop it. */
  push(part: string, stop: () => Promise<unknown>): void;
  /**
   * Stops every part, newest first, each even if one before failed (that one is logged). Resolves false
   * when a stop threw or itself resolved false (a nested stack that was not clean).
   */
  stopAll(): Promise<boolean>;
}

export function createStopStack(logger: Logger): StopStack {
  const steps: { part: string; stop: () => Promise<unknown> }[] = [];
  return {
    push(part, stop) {
      steps.push({ part, stop });
      logger.debug({ part }, 'started');
    },
    async stopAll() {
      let clean = true;
      // Popped one by one: a part that a start still under way pushes meanwhile is stopped too.
      for (let step = steps.pop(); step; step = steps.pop()) {
        logger.debug({ part: step.part }, 'stopping');
        try {
          if ((await step.stop()) === false) clean = false;
        } catch (error) {
          clean = false;
          logger.error({ err: error }, `shutdown: ${step.part} failed`);
        }
      }
      return clean;
    },
  };
}
