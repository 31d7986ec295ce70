import { readFileSync } from 'node:fs';

/** The package version, read once; the same relative path holds for src/ and the compiled dist/. */
export const version = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
