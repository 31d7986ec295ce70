import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Intercom's own OpenAPI description of REST API 2.15 (MIT), which the sandbox is checked against: a copy in
 * test/fixtures/intercom, so the check runs on a fresh clone; INTERCOM_OPENAPI_FILE points elsewhere.
 */
export const OPENAPI_FILE =
  process.env.INTERCOM_OPENAPI_FILE ??
  fileURLToPath(new URL('../../../fixtures/intercom/api.intercom.io-2.15.yaml', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Operation {
  readonly responses: Record<
    string,
    { readonly content?: Record<string, { schema?: Json; examples?: Record<string, { value: Json }> }> }
  >;
}

export interface IntercomSpec {
  /** A validator for the JSON answer of an operation with this status, e.g. ('/me', 'get', 200). */
  response(path: string, method: string, status: number): ValidateFunction;
  /** A component schema's validator, e.g. 'conversation' for webhook items. */
  component(name: string): ValidateFunction;
  /** The operation's first example answer with this status (null when it has none). */
  example(path: string, method: string, status: number): Json;
}

export function loadIntercomSpec(): IntercomSpec | null {
  if (!existsSync(OPENAPI_FILE)) return null;
  const document = parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Json> };
  };
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: under NodeNext its default import is the module, the plugin is `.default`.
  addFormats.default(ajv);
  // Intercom's own examples carry relative URLs ("/contacts/<id>/tags") and plain words ("tag") where the
  // schema says `format: uri`: the file's `uri` is read as a URI reference. `timestamp` is its own name.
  ajv.addFormat('uri', /^\S*$/);
  ajv.addFormat('timestamp', true);
  const definitions = Object.fromEntries(
    Object.entries(document.components.schemas).map(([name, schema]) => [name, toJsonSchema(schema)]),
  );
  ajv.addSchema({ $id: 'intercom', definitions });

  const content = (path: string, method: string, status: number) => {
    const operation = document.paths[path]?.[method];
    const json = operation?.responses[String(status)]?.content?.['application/json'];
    if (!json)
      throw new Error(`the OpenAPI file has no JSON answer ${status} for ${method.toUpperCase()} ${path}`);
    return json;
  };
  return {
    response(path, method, status) {
      const { schema } = content(path, method, status);
      if (schema === undefined) throw new Error(`no schema for ${method} ${path} ${status}`);
      return ajv.compile(toJsonSchema(schema) as object);
    },
    component(name) {
      return ajv.compile({ $ref: `intercom#/definitions/${name}` });
    },
    example(path, method, status) {
      return Object.values(content(path, method, status).examples ?? {})[0]?.value ?? null;
    },
  };
}

/**
 * OpenAPI 3.0 schema -> JSON Schema for ajv: `$ref` into components points at the shared definitions;
 * `nullable: true` becomes a null type (or an `anyOf` with null where there is no `type`, as beside a
 * `$ref`, which 3.0 tools read as nullable although the specification ignores a ref's siblings).
 */
export function toJsonSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema;
  const converted: JsonObject = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$ref' && typeof value === 'string') {
      converted[key] = value.replace('#/components/schemas/', 'intercom#/definitions/');
    } else if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
      converted[key] = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, toJsonSchema(property)]),
      );
    } else {
      converted[key] =
        key === 'example' || key === 'examples' || key === 'enum' ? value : toJsonSchema(value);
    }
  }
  if (nullable !== true) return converted;
  if (typeof converted.type === 'string' && converted.$ref === undefined) {
    const withNull: JsonObject = { ...converted, type: [converted.type, 'null'] };
    if (Array.isArray(converted.enum) && !converted.enum.includes(null))
      withNull.enum = [...converted.enum, null];
    return withNull;
  }
  return { anyOf: [converted, { type: 'null' }] };
}

/** Readable ajv errors for an assertion message. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`).join('; ');
}

/**
 * The paths (a.b.c) of keys Intercom's example answer has and `actual` lacks, through nested objects.
 * Arrays are not compared: their elements differ by kind (a note part is not a comment part).
 */
export function missingKeys(example: Json, actual: unknown, at = ''): string[] {
  if (!isObject(example) || !isObject(actual)) return [];
  return Object.entries(example).flatMap(([key, value]) => {
    const path = at ? `${at}.${key}` : key;
    if (!(key in actual)) return [path];
    return missingKeys(value, actual[key], path);
  });
}

function isObject(value: unknown): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
