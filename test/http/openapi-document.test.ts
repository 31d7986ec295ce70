import { describe, expect, it } from 'vitest';
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
