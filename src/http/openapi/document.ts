import { pruneSchemas } from './components.ts';
import { addExamples } from './examples.ts';
import { describeResponses } from './responses.ts';
import type { Document } from './types.ts';

/**
 * The last step of building `/openapi.json`, after the zod schemas became JSON Schema: one shape per
 * component, the conventional headers and problem responses, and the examples.
 */
export function finishDocument(generated: Document): Document {
  const document = pruneSchemas(structuredClone(generated));
  describeResponses(document);
  addExamples(document);
  return document;
}
