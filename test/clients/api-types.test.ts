import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { serviceDocument, TYPES_FILE, typesOf } from '../../scripts/openapi-types.ts';
import { useRunningApp } from '../support/app.ts';

// The web SDK imports clients/api/schema.d.ts; the typed-client suite (test/e2e/typed-client.test.ts) is
// type-checked against it. A route change without `npm run openapi:types` fails here (decision 032).
describe('the generated API client types (clients/api)', () => {
  const used = useRunningApp();
  const served = async () => (await fetch(`${used.running.url}/openapi.json`)).text();

  it('are the types of the document the running service serves', async () => {
    const committed = await readFile(TYPES_FILE, 'utf8');
    expect(
      await typesOf(await served()),
      'clients/api/schema.d.ts is out of date: run `npm run openapi:types` and commit it',
    ).toBe(committed);
  });

  it('are generated from the same document, built without a database or a socket', async () => {
    // What `npm run openapi:types` builds in memory must be what a started service serves.
    expect(JSON.parse(await serviceDocument())).toEqual(JSON.parse(await served()));
  });
});
