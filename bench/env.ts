/** Settings from the environment, shared by every benchmark. */

export function positiveInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}

export const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
