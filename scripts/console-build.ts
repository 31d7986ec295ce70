// Builds the admin console into console/dist, which is committed and served at /console (decision 044):
// `npm run console:build`. test/console/build.test.ts runs it into a folder of its own and compares.
// Usage: console-build.ts [outDir]
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

// React's production build whatever the shell says (vitest, for one, sets NODE_ENV=test).
process.env['NODE_ENV'] = 'production';

const outDir = process.argv[2];
await build({
  configFile: fileURLToPath(new URL('../console/vite.config.ts', import.meta.url)),
  mode: 'production',
  logLevel: 'warn',
  ...(outDir === undefined ? {} : { build: { outDir, emptyOutDir: true } }),
});
