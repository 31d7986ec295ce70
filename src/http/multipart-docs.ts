import type { SwaggerTransform } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

// Multipart bodies are read by the route as they stream (never through a body schema), so the
// document would not show them. A route states its form here and this adds it to the document only.

type FieldDoc =
  | { readonly kind: 'file'; readonly description: string }
  | { readonly kind: 'text'; readonly description: string; readonly maxLength: number };

export interface MultipartForm {
  /** In the order the route reads them. */
  readonly fields: Readonly<Record<string, FieldDoc>>;
  readonly required: readonly string[];
  /** The same request as JSON, for routes that take both (JSON Schema of the body). */
  readonly json?: Record<string, unknown>;
}

const fieldSchema = (field: FieldDoc) =>
  field.kind === 'file'
    ? { type: 'string', format: 'binary', description: field.description }
    : { type: 'string', minLength: 1, maxLength: field.maxLength, description: field.description };

/** The route's `config.swaggerTransform`: the usual zod transform, plus the form as the request body. */
export function documentMultipart(form: MultipartForm): SwaggerTransform {
  return (input) => {
    const transformed = jsonSchemaTransform(input);
    const multipartSchema = {
      type: 'object',
      properties: Object.fromEntries(Object.entries(form.fields).map(([name, f]) => [name, fieldSchema(f)])),
      required: [...form.required],
      additionalProperties: false,
    };
    const content = {
      'multipart/form-data': { schema: multipartSchema },
      ...(form.json ? { 'application/json': { schema: form.json } } : {}),
    };
    return { ...transformed, schema: { ...transformed.schema, body: { content } } };
  };
}
