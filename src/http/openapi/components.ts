import { isDeepStrictEqual } from 'node:util';
import type { Document, JsonSchema } from './types.ts';

/**
 * The zod type provider writes every named schema twice, `X` as answers read it and `XInput` as
 * requests send it, whether or not a route uses it that way. Generators then make two types of one
 * shape and keep ones nothing refers to. This keeps what the operations reach, and names a shape once:
 * `XInput` becomes `X` when `X` is unused or the same shape.
 */

const prefix = '#/components/schemas/';
const INPUT = 'Input';

function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith(prefix)) {
        into.add(inner.slice(prefix.length));
      } else collectRefs(inner, into);
    }
  }
}

function renameRefs<T>(value: T, rename: (name: string) => string): T {
  if (Array.isArray(value)) return value.map((item: unknown) => renameRefs(item, rename)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith(prefix)
        ? prefix + rename(inner.slice(prefix.length))
        : renameRefs(inner, rename);
  }
  return out as T;
}

function reachable(document: Document, schemas: Record<string, JsonSchema>): Set<string> {
  const seen = new Set<string>();
  collectRefs({ ...document, components: { ...document.components, schemas: {} } }, seen);
  const queue = [...seen];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    const found = new Set<string>();
    collectRefs(schemas[name], found);
    for (const next of found) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

/** The `XInput` names that may be called `X`: no `X`, or an `X` of the same shape once the others merge. */
function mergeable(schemas: Record<string, JsonSchema>): Set<string> {
  const merged = new Set(Object.keys(schemas).filter((name) => name.endsWith(INPUT)));
  const base = (name: string) => (merged.has(name) ? name.slice(0, -INPUT.length) : name);
  for (let changed = true; changed;) {
    changed = false;
    for (const name of merged) {
      const twin = schemas[base(name)];
      if (twin && !isDeepStrictEqual(renameRefs(schemas[name], base), renameRefs(twin, base))) {
        merged.delete(name);
        changed = true;
      }
    }
  }
  return merged;
}

/** Drops the schemas no operation reaches and names each shape once. */
export function pruneSchemas(document: Document): Document {
  const all = document.components?.schemas ?? {};
  const used = reachable(document, all);
  const kept = Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name)));
  const merged = mergeable(kept);
  const rename = (name: string) => (merged.has(name) ? name.slice(0, -INPUT.length) : name);
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(kept)) {
    // A merged pair keeps one copy; the answer's (`X`) has the descriptions written for readers.
    if (merged.has(name) && kept[rename(name)]) continue;
    schemas[rename(name)] = renameRefs(schema, rename);
  }
  return renameRefs({ ...document, components: { ...document.components, schemas } }, rename);
}
