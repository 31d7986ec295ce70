import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where the local adapter writes an object while it streams in, below its directory. A finished write
 * renames its file into place and a failed one removes it, so what stays here was left by a process that
 * died mid-write.
 */
export const LOCAL_TEMP_DIR = '.tmp';

const isMissing = (error: unknown): boolean =>
  error instanceof Error && 'code' in error && error.code === 'ENOENT';

/**
 * Deletes the local adapter's temporary files below `dir` last written before `before`; answers how many
 * went. A write in progress keeps touching its file, so only a write stalled for the whole margin (or
 * one whose process died) loses it, and that write then fails instead of storing a partial object.
 */
export async function removeStaleTempFiles(dir: string, before: Date): Promise<number> {
  const temp = join(dir, LOCAL_TEMP_DIR);
  let names: string[];
  try {
    names = await readdir(temp);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(temp, name);
    try {
      const stats = await lstat(path);
      if (!stats.isFile() || stats.mtimeMs >= before.getTime()) continue;
      await rm(path);
      removed += 1;
    } catch (error) {
      // Renamed or removed by its own write meanwhile: nothing left to do.
      if (!isMissing(error)) throw error;
    }
  }
  return removed;
}
