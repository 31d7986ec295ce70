import { pruneSchemas } from './components.ts';
import { addExamples } from './examples.ts';
import { orderDocument } from './order.ts';
import { describeResponses } from './responses.ts';
import type { Document } from './types.ts';

/**
 * The last step of building `/openapi.json`, after the zod schemas became JSON Schema: one shape per
 * component, the conventional headers and problem responses, the examples, and one fixed order of schemas
 * and paths, whatever order modules were imported and routes registered in.
 */
export function finishDocument(generated: Document): Document {
  const document = pruneSchemas(structuredClone(generated));
  describeResponses(document);
  addExamples(document);
  return orderDocument(document);
}
