import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serviceDocument } from '../../scripts/openapi-types.ts';

/**
 * The document's order is its own. zod names a schema when its module is first evaluated, and fastify lists
 * routes as they register, so without a fixed order an import sorter, or an entry point that imports a
 * domain module early, would change the contract the SDKs generate from.
 */

const run = promisify(execFile);
const root = process.cwd();

const documentSchema = z.object({
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.object({ schemas: z.record(z.string(), z.unknown()) }).loose(),
});

/** The OpenAPI specification's order of a path item's methods. */
const methodOrder = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every module of src that names a schema for the document (`.meta({ id: … })`). */
async function schemaModules(): Promise<string[]> {
  const files = (await readdir(join(root, 'src'), { recursive: true })).filter((f) => f.endsWith('.ts'));
  const naming = await Promise.all(
    files.map(async (file) => /\.meta\(\{\s*id:/.test(await readFile(join(root, 'src', file), 'utf8'))),
  );
  return files.filter((_file, i) => naming[i]).sort();
}

/** The document as a fresh process builds it after evaluating `modules` first, in that order. */
async function documentAfterImporting(modules: readonly string[]): Promise<string> {
  const urls = modules.map((file) => pathToFileURL(join(root, 'src', file)).href);
  const script = pathToFileURL(join(root, 'scripts/openapi-types.ts')).href;
  const code = `
    for (const url of ${JSON.stringify(urls)}) await import(url);
    const { serviceDocument } = await import(${JSON.stringify(script)});
    process.stdout.write(await serviceDocument());`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', code], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

describe('the order of the OpenAPI document', () => {
  it('lists schemas by name, paths by path, and the operations of a path in the specification order', async () => {
    const document = documentSchema.parse(JSON.parse(await serviceDocument()));
    const names = Object.keys(document.components.schemas);
    expect(names.length).toBeGreaterThan(1);
    expect(names).toEqual(names.toSorted());
    const paths = Object.keys(document.paths);
    expect(paths).toEqual(paths.toSorted());
    for (const [path, item] of Object.entries(document.paths)) {
      const methods = Object.keys(item);
      const ranked = methods.toSorted((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b));
      expect(methods, path).toEqual(ranked);
    }
  });

  it('is the same, byte for byte, when the modules that name schemas are imported in reverse order', async () => {
    const modules = await schemaModules();
    expect(modules).toContain('http/problem.ts');
    const [forward, reverse] = await Promise.all([
      documentAfterImporting(modules),
      documentAfterImporting(modules.toReversed()),
    ]);
    expect(reverse).toBe(forward);
    expect(forward).toBe(await serviceDocument());
  }, 60_000);
});
