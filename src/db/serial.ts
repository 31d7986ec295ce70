/**
 * Runs tasks one after another: a pg.Client takes one query at a time (queuing more is deprecated in pg
 * 8 and goes in pg 9), and a connection that several loops share must wait its turn here.
 */
export function serial(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = last.then(task, task);
    last = run.catch(() => undefined);
    return run;
  };
}
