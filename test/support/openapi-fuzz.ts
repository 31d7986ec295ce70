// Reads the served OpenAPI document and turns each operation into requests that break one declared input
// at a time. Only what the document declares is used: an input it does not describe is not fuzzed, which
// is itself a finding (the contract must describe what the server reads).

export type JsonSchema = {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly pattern?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly $ref?: string;
  readonly default?: unknown;
};

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly schema?: JsonSchema;
}

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly parameters: readonly Parameter[];
  /** Media type → schema of the request body, as declared. */
  readonly bodies: Readonly<Record<string, JsonSchema>>;
  readonly security: 'session' | 'admin' | 'none';
}

export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, Record<string, unknown>>>;
  readonly components?: { readonly schemas?: Record<string, JsonSchema> };
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
        security?: Record<string, unknown>[];
      };
      const bodies: Record<string, JsonSchema> = {};
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        bodies[type] = media.schema ?? {};
      }
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        bodies,
        security: schemes.includes('adminToken')
          ? 'admin'
          : schemes.includes('sessionJwt')
            ? 'session'
            : 'none',
      });
    }
  }
  return operations;
}

export function resolver(document: OpenApiDocument): (schema: JsonSchema) => JsonSchema {
  const resolve = (schema: JsonSchema): JsonSchema => {
    if (schema.$ref) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      const found = document.components?.schemas?.[name];
      if (!found) throw new Error(`unresolved ${schema.$ref}`);
      return resolve(found);
    }
    if (schema.allOf?.length) {
      return schema.allOf.map(resolve).reduce<JsonSchema>(
        (merged, part) => ({
          ...merged,
          ...part,
          properties: { ...merged.properties, ...part.properties },
          required: [...(merged.required ?? []), ...(part.required ?? [])],
        }),
        {},
      );
    }
    return schema;
  };
  return resolve;
}

const typeOf = (schema: JsonSchema): string | undefined =>
  Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string);

/** A value the schema accepts, as far as a generic reading can tell (formats and enums honoured). */
export function sample(schema: JsonSchema, resolve: (s: JsonSchema) => JsonSchema): unknown {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const choice = s.anyOf ?? s.oneOf ?? [];
  const first = choice.find((c) => typeOf(resolve(c)) !== 'null') ?? choice[0];
  if (first) return sample(first, resolve);
  switch (typeOf(s)) {
    case 'string':
      return sampleString(s);
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return s.items && (s.minItems ?? 0) > 0 ? [sample(s.items, resolve)] : [];
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const key of s.required ?? []) {
        const property = s.properties?.[key];
        if (property) value[key] = sample(property, resolve);
      }
      return value;
    }
    default:
      return 'x';
  }
}

function sampleString(s: JsonSchema): string {
  switch (s.format) {
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    case 'email':
      return 'fuzz@example.com';
    case 'date-time':
      return new Date(Date.now() + 3_600_000).toISOString();
    case 'uri':
      return 'https://example.com/x';
    default:
      return 'f'.repeat(Math.max(1, s.minLength ?? 1));
  }
}

/** One broken input: what it breaks, and the value (undefined = left out). */
export interface Mutation {
  readonly label: string;
  readonly value: unknown;
}

export const NUL = 'a\u0000b';
export const LONE_SURROGATE = 'a\ud800b';

/** The ways to break one string input. */
export function stringMutations(schema: JsonSchema, required: boolean): Mutation[] {
  const tooLong = 'x'.repeat(Math.min((schema.maxLength ?? 20_000) + 1, 200_000));
  return [
    { label: 'NUL', value: NUL },
    { label: 'lone surrogate', value: LONE_SURROGATE },
    { label: 'control characters', value: 'a\u0007\u001b[2Jb' },
    { label: 'over-long', value: tooLong },
    { label: 'wrong type', value: 12345 },
    { label: 'object', value: { nested: NUL } },
    ...(required ? [{ label: 'missing', value: undefined }] : []),
  ];
}

/** Every string (or string-holding) property path of an object schema, one level of nesting deep. */
export function stringPaths(
  schema: JsonSchema,
  resolve: (s: JsonSchema) => JsonSchema,
  prefix: readonly string[] = [],
  depth = 0,
): { path: string[]; schema: JsonSchema; required: boolean }[] {
  const s = resolve(schema);
  const found: { path: string[]; schema: JsonSchema; required: boolean }[] = [];
  for (const [key, raw] of Object.entries(s.properties ?? {})) {
    const property = resolve(raw);
    const path = [...prefix, key];
    const required = (s.required ?? []).includes(key);
    const kind = typeOf(property);
    if (kind === 'object' && depth < 2) found.push(...stringPaths(property, resolve, path, depth + 1));
    else found.push({ path, schema: property, required });
    const items = kind === 'array' && property.items ? resolve(property.items) : undefined;
    if (items && typeOf(items) === 'object' && depth < 2) {
      found.push(
        ...stringPaths(items, resolve, [...path, '0'], depth + 1).map((f) => ({ ...f, required: false })),
      );
    } else if (items && typeOf(items) === 'string') {
      found.push({ path: [...path, '0'], schema: items, required: false });
    }
  }
  return found;
}

/** `value` with `path` set (or removed, for undefined); arrays on the way are created with one element. */
export function withPath(value: unknown, path: readonly string[], replacement: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (/^\d+$/.test(head)) {
    const list = Array.isArray(value) ? [...(value as unknown[])] : [{}];
    list[Number(head)] = withPath(list[Number(head)] ?? {}, rest, replacement);
    return list;
  }
  const object = {
    ...(typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}),
  };
  if (rest.length === 0 && replacement === undefined) {
    return Object.fromEntries(Object.entries(object).filter(([key]) => key !== head));
  }
  object[head] = withPath(object[head], rest, replacement);
  return object;
}

export interface FormPart {
  readonly name: string;
  readonly value: string | Buffer;
  /** Set for a file part. */
  readonly filename?: string;
}

/** A multipart/form-data body as raw bytes, so a test controls every byte (NULs, bad boundaries). */
export function multipartBytes(boundary: string, parts: readonly FormPart[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.name}"`
        : `form-data; name="${part.name}"; filename="${part.filename}"`;
    const type = part.filename === undefined ? '' : 'Content-Type: text/plain\r\n';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
