import { readFileSync } from 'node:fs';

/** The package version, read once; the same relative path holds for src/lib and the compiled dist/lib. */
export const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
