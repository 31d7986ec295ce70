#!/usr/bin/env node
// Copies the SQL migrations next to the compiled code: tsc emits only JavaScript, and src/db/migrate.ts
// reads `./migrations` relative to itself, so dist/db/migrations must exist for `node dist/main.js`.
// Dependency-free on purpose; `npm run build` runs it under Node 24 (scripts/node24.mjs) after tsc.
import { cpSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src', 'db', 'migrations');
const to = join(root, 'dist', 'db', 'migrations');

if (!existsSync(from)) {
  process.stderr.write(`copy-migrations: ${from} does not exist\n`);
  process.exit(1);
}
// TypeScript sources are tsc's business (it emits their .js here itself); copy everything else.
cpSync(from, to, { recursive: true, filter: (src) => !src.endsWith('.ts') });
process.stdout.write(`copy-migrations: ${from} -> ${to}\n`);
