export interface Teardown {
  /** Registers a step; steps run in reverse order of registration. */
  add(name: string, step: () => Promise<unknown>): void;
  /** Runs every step even if an earlier one fails; resolves false if any failed. */
  run(): Promise<boolean>;
}

export function createTeardown(): Teardown {
  const steps: { name: string; step: () => Promise<unknown> }[] = [];
  return {
    add(name, step) {
      steps.push({ name, step });
    },
    async run() {
      let clean = true;
      for (let next = steps.pop(); next; next = steps.pop()) {
        try {
          await next.step();
        } catch (error) {
          clean = false;
          process.stderr.write(`bench: cleanup of ${next.name} failed: ${String(error)}\n`);
        }
      }
      return clean;
    },
  };
}

/** Runs a benchmark, then its teardown whatever happened; a failed cleanup makes the exit code 1. */
export async function withTeardown(run: (teardown: Teardown) => Promise<number>): Promise<number> {
  const teardown = createTeardown();
  let code: number;
  try {
    code = await run(teardown);
  } finally {
    if (!(await teardown.run())) code = 1;
  }
  return code;
}
