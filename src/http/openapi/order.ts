import type { Document, JsonSchema, Operation } from './types.ts';

/**
 * Left alone, the generator lists named schemas in the order their modules were first evaluated (zod names
 * a schema as its module runs) and paths in the order routes were registered. So an import sorter, a moved
 * `register` or an entry point importing a domain module early would reorder the contract. The document
 * is put in one order on purpose instead: schemas by name, paths by path, a path's operations as the
 * OpenAPI specification lists the methods.
 */

const methodOrder = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Code-unit order, as `Array.prototype.sort` and `jq -S` use: the same on every machine and locale. */
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/** A path item's methods in the specification's order; any other field after them, by name. */
function methodRank(key: string): number {
  const rank = methodOrder.indexOf(key);
  return rank === -1 ? methodOrder.length : rank;
}

function orderPathItem(item: Record<string, Operation>): Record<string, Operation> {
  return Object.fromEntries(
    Object.entries(item).sort((a, b) => methodRank(a[0]) - methodRank(b[0]) || byKey(a, b)),
  );
}

/** The document with its schemas, paths and operations in a fixed order; nothing else changes. */
export function orderDocument(document: Document): Document {
  const ordered: Document = { ...document };
  if (document.paths) {
    ordered.paths = Object.fromEntries(
      Object.entries(document.paths)
        .sort(byKey)
        .map(([path, item]) => [path, orderPathItem(item)]),
    );
  }
  const schemas = document.components?.schemas;
  if (document.components && schemas) {
    const sorted: Record<string, JsonSchema> = Object.fromEntries(Object.entries(schemas).sort(byKey));
    ordered.components = { ...document.components, schemas: sorted };
  }
  return ordered;
}
