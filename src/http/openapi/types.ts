/** The parts of an OpenAPI 3.1 document the finishing steps read and write; the rest passes through. */

export type JsonSchema = Readonly<Record<string, unknown>>;

export interface Reference {
  readonly $ref: string;
}

export interface Header {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
}

export interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
  [key: string]: unknown;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
  [key: string]: unknown;
}

export interface Parameter {
  readonly in: string;
  readonly name: string;
  [key: string]: unknown;
}

export interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, MediaType>; [key: string]: unknown };
  responses?: Record<string, Response>;
  [key: string]: unknown;
}

export interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    headers?: Record<string, Header>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Every operation of the document with its path and method. */
export function* operations(
  document: Document,
): Generator<{ path: string; method: string; operation: Operation }> {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (methods.has(method)) yield { path, method, operation };
    }
  }
}
