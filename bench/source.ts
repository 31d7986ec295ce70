import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Which code a report measured: the commit, and a digest of the measured folders as they were on disk. */
export interface SourceVersion {
  readonly commit: string;
  /** Files under the measured folders that differ from the commit (uncommitted work is measured too). */
  readonly uncommitted: readonly string[];
  /** SHA-256 (first 12 hex digits) over the paths and contents of every file under the measured folders. */
  readonly digest: string;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort();
}

const git = (...args: string[]): string => {
  try {
    // Only the end is trimmed: a porcelain status line starts with a status column that may be a space.
    return execFileSync('git', args, {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trimEnd();
  } catch {
    return '';
  }
};

export async function sourceVersion(folders: readonly string[]): Promise<SourceVersion> {
  const hash = createHash('sha256');
  for (const folder of folders) {
    for (const file of await filesUnder(folder))
      hash
        .update(file)
        .update('\0')
        .update(await readFile(join(ROOT, file)));
  }
  const status = git('status', '--porcelain', '--untracked-files=all', '--', ...folders);
  return {
    commit: git('rev-parse', '--short', 'HEAD') || 'unknown',
    uncommitted: status === '' ? [] : status.split('\n').map((line) => line.slice(3)),
    digest: hash.digest('hex').slice(0, 12),
  };
}
