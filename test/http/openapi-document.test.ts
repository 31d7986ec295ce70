import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useRunningApp } from '../support/app.ts';

/**
 * The contract the SDKs generate from, pinned byte for byte: a change of it shows in review as a change
 * of these files (`npm test -- -u test/http/openapi-document.test.ts` rewrites them after a deliberate
 * change). Devtools add their routes only when enabled, so both documents are pinned.
 */
describe.each([
  { name: 'openapi.json', env: {} },
  { name: 'openapi-devtools.json', env: { ENABLE_DEVTOOLS: '1', ENABLE_DEVTOOLS_RESET_ALL: '1' } },
])('the OpenAPI document ($name)', ({ name, env }) => {
  const used = useRunningApp({ env });

  it('is the one pinned in the repository', async () => {
    const res = await fetch(`${used.running.url}/openapi.json`);
    expect(res.status).toBe(200);
    const pretty = `${JSON.stringify(await res.json(), null, 2)}\n`;
    await expect(pretty).toMatchFileSnapshot(`./__snapshots__/${name}`);
  });
});

describe('the rich-text tree in the OpenAPI document', () => {
  const used = useRunningApp();

  it('is a recursive component that messages and ticket parts refer to', async () => {
    const document = z
      .object({ components: z.object({ schemas: z.record(z.string(), z.unknown()) }) })
      .parse(await (await fetch(`${used.running.url}/openapi.json`)).json());
    const { schemas } = document.components;
    const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
    expect(schemas['SupportMessage']).toMatchObject({
      properties: { content: ref('RichText') },
      required: expect.arrayContaining(['body', 'content']) as unknown,
    });
    expect(schemas['SupportTicket']).toMatchObject({
      properties: {
        parts: { items: { properties: { content: { anyOf: [ref('RichText'), { type: 'null' }] } } } },
      },
    });
    expect(schemas['RichText']).toEqual({ type: 'array', items: ref('RichTextBlock') });
    expect(schemas['RichTextBlock']).toEqual({
      oneOf: ['Paragraph', 'Heading', 'List', 'Code', 'Quote', 'Image'].map((kind) => ref(`RichText${kind}`)),
    });
    // Lists and quotes hold blocks again: the recursion is a $ref back to the block, not an inlined copy.
    expect(schemas['RichTextQuote']).toMatchObject({
      properties: { children: { type: 'array', items: ref('RichTextBlock') } },
    });
    expect(schemas['RichTextListItem']).toMatchObject({
      properties: { children: { type: 'array', items: ref('RichTextBlock') } },
    });
    expect(schemas['RichTextInline']).toEqual({
      oneOf: [ref('RichTextText'), ref('RichTextLink'), ref('RichTextBreak')],
    });
  });
});
