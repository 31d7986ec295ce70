import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = join(root, 'test/fixtures/layers');

/**
 * Cruises `src` of the given base directory with the rules of `.dependency-cruiser.mjs`, loaded and resolved
 * the way `npm run lint` loads them, and returns each violation as `rule: from → to` (a cycle as the whole
 * round, `a → b → a`). An npm package reads as `npm:<name>`, wherever node_modules lies.
 */
async function violations(baseDir: string): Promise<string[]> {
  const tsConfigFile = join(root, 'tsconfig.json');
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.mjs'));
  const { output } = await cruise(
    ['src'],
    { ...options, baseDir, tsConfig: { fileName: tsConfigFile } },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  const npm = (path: string) => path.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, 'npm:$1');
  return (output as ICruiseResult).summary.violations
    .map(({ rule, from, to, cycle }) => {
      const path = cycle ? [from, ...cycle.map(({ name }) => name)] : [from, npm(to)];
      return `${rule.name}: ${path.join(' → ')}`;
    })
    .sort();
}

describe('the layer rules on a fixture tree with deliberately wrong imports', () => {
  let found: string[];
  beforeAll(async () => {
    found = await violations(fixture);
  });

  it('reports commands importing queries (type-only) and a store implementation', () => {
    expect(found).toContain('commands-layer: src/commands/post.ts → src/queries/feed.ts');
    expect(found).toContain('commands-layer: src/commands/append.ts → src/events/store/postgres.ts');
  });

  it('reports commands and events importing infrastructure packages, but not the store', () => {
    expect(found).toContain('domain-not-to-infrastructure: src/commands/post.ts → npm:fastify');
    expect(found).toContain('domain-not-to-infrastructure: src/events/domain.ts → npm:pg');
    expect(found.filter((line) => line.includes('src/events/store/postgres.ts → npm:'))).toEqual([]);
  });

  it('reports db importing a domain folder', () => {
    expect(found).toContain('db-layer: src/db/migrate.ts → src/chat/messages.ts');
  });

  it('reports queries importing commands', () => {
    expect(found).toContain('queries-layer: src/queries/replay.ts → src/commands/handler.ts');
  });

  it('reports http importing jobs, and db beyond pool.ts', () => {
    expect(found).toContain('http-layer: src/http/routes.ts → src/jobs/publish.ts');
    expect(found).toContain('http-layer: src/http/routes.ts → src/db/migrate.ts');
  });

  it('reports a two-file cycle', () => {
    expect(found).toContain('no-circular: src/lib/cycle-a.ts → src/lib/cycle-b.ts → src/lib/cycle-a.ts');
  });

  it('lets the allowed imports through', () => {
    const allowed = [
      'src/http/routes.ts → src/commands/post.ts',
      'src/http/routes.ts → src/events/store/port.ts',
      'src/http/routes.ts → src/db/pool.ts',
      'src/commands/post.ts → src/events/store/port.ts',
      'src/commands/post.ts → src/events/domain.ts',
      'src/commands/post.ts → src/content-safety/check.ts',
      'src/projections/feed.ts → src/events/store/lag.ts',
      'src/processors/outbox.ts → src/events/store/lag.ts',
      'src/cli.ts → src/wiring/setup.ts',
      'src/wiring/setup.ts → src/http/routes.ts',
    ];
    expect(found.filter((line) => allowed.some((edge) => line.endsWith(`: ${edge}`)))).toEqual([]);
  });

  // The whole list, so that a rule deleted from the config, or one that starts catching more, fails here.
  it('reports exactly one violation per wrong import, and each rule at least once', () => {
    expect(found).toEqual(
      [
        'auth-layer: src/auth/session.ts → src/chat/messages.ts',
        'chat-layer: src/chat/messages.ts → src/auth/users.ts',
        'commands-layer: src/commands/append.ts → src/events/store/postgres.ts',
        'commands-layer: src/commands/post.ts → src/queries/feed.ts',
        'config-layer: src/config.ts → src/lib/helper.ts',
        'content-safety-layer: src/content-safety/scan.ts → src/db/pool.ts',
        'db-layer: src/db/migrate.ts → src/chat/messages.ts',
        'dev-layer: src/dev/seed.ts → src/db/pool.ts',
        'domain-not-to-infrastructure: src/commands/post.ts → npm:fastify',
        'domain-not-to-infrastructure: src/events/domain.ts → npm:pg',
        'event-store-layer: src/events/store/postgres.ts → src/db/pool.ts',
        'events-layer: src/events/domain.ts → src/events/store/port.ts',
        'files-layer: src/files/upload.ts → src/push/notify.ts',
        'http-layer: src/http/routes.ts → src/db/migrate.ts',
        'http-layer: src/http/routes.ts → src/jobs/publish.ts',
        'integrations-layer: src/integrations/client.ts → src/db/pool.ts',
        'jobs-layer: src/jobs/publish.ts → src/processors/outbox.ts',
        'lib-layer: src/lib/uses-config.ts → src/config.ts',
        'no-circular: src/lib/cycle-a.ts → src/lib/cycle-b.ts → src/lib/cycle-a.ts',
        'no-non-package-json: src/lib/undeclared-package.ts → npm:acorn',
        'not-to-composition: src/lib/uses-wiring.ts → src/wiring/setup.ts',
        'not-to-unresolvable: src/lib/unresolvable.ts → ./missing.ts',
        'processors-layer: src/processors/outbox.ts → src/queries/feed.ts',
        'unlayered: src/stray/orphan.ts → src/lib/helper.ts',
        'projections-layer: src/projections/feed.ts → src/events/store/postgres.ts',
        'push-layer: src/push/send.ts → src/files/store.ts',
        'queries-layer: src/queries/replay.ts → src/commands/handler.ts',
        'wiring-not-to-entry-points: src/wiring/setup.ts → src/main.ts',
      ].sort(),
    );
  });
});
