import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { batched } from '../../src/lib/batched.ts';

/** A load that records each batch and answers it only when told to. */
function gatedLoad() {
  const batches: string[][] = [];
  const answers: (() => void)[] = [];
  const load = (keys: readonly string[]) =>
    new Promise<string[]>((resolve) => {
      batches.push([...keys]);
      answers.push(() => {
        resolve(keys.map((k) => k.toUpperCase()));
      });
    });
  return { batches, answers, load };
}

describe('batched', () => {
  it('sends the keys of one turn of the event loop together, and each turn’s keys on their own', async () => {
    const { batches, answers, load } = gatedLoad();
    const get = batched(load);
    const first = [get('a'), get('b')];
    await nextTurn();
    const second = [get('c')];
    await nextTurn();
    expect(batches).toEqual([['a', 'b'], ['c']]);
    for (const answer of answers) answer();
    expect(await Promise.all([...first, ...second])).toEqual(['A', 'B', 'C']);
  });

  it('with inFlight, holds later turns’ keys until a batch returns, then sends them together', async () => {
    const { batches, answers, load } = gatedLoad();
    const get = batched(load, { inFlight: 1 });
    const first = get('a');
    await nextTurn();
    const later = [get('b')];
    await nextTurn();
    later.push(get('c'));
    await nextTurn();
    expect(batches).toEqual([['a']]);
    answers[0]?.();
    expect(await first).toBe('A');
    await nextTurn();
    expect(batches).toEqual([['a'], ['b', 'c']]);
    answers[1]?.();
    expect(await Promise.all(later)).toEqual(['B', 'C']);
  });

  it('with inFlight, frees its place when a batch fails', async () => {
    const failing = batched(
      (keys: readonly string[]) =>
        keys.includes('bad') ? Promise.reject(new Error('refused')) : Promise.resolve([...keys]),
      { inFlight: 1 },
    );
    await expect(failing('bad')).rejects.toThrow('refused');
    expect(await failing('good')).toBe('good');
  });
});
