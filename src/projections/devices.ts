import { type CommonQueryMethods, type IdentifierSqlToken, sql } from 'slonik';
import { DEVICES_CATEGORY, deviceCodec, userOfDevicesStream } from '../events/devices.ts';
import type { RecordedEvent } from '../events/envelope.ts';
import type { DeviceTelemetry } from '../lib/device-telemetry.ts';
import { applyAroundErasures, ERASURES } from './erasures.ts';
import type { Projection, Tables } from './projection.ts';

/**
 * Where one token stands after a batch, relative to the row it had before (there is at most one: a
 * registration removes every other user's row for its token).
 */
type TokenOutcome =
  /** Only unregistrations: the stored row goes if it belongs to one of these users. */
  | { readonly kind: 'removed'; readonly users: ReadonlySet<string> }
  /** Registered and unregistered again: no row at all. */
  | { readonly kind: 'gone' }
  /** One user's row; `keepStoredSince` when a stored row of that user survived the whole batch. */
  | {
      readonly kind: 'held';
      readonly userId: string;
      readonly platform: string;
      readonly provider: string;
      readonly registeredAt: string;
      readonly updatedAt: string;
      readonly keepStoredSince: boolean;
      /** From the last registration: each one carries the device's newest telemetry whole. */
      readonly telemetry: DeviceTelemetry | undefined;
    };

function register(
  before: TokenOutcome | undefined,
  userId: string,
  device: { platform: string; provider: string; telemetry?: DeviceTelemetry | null | undefined },
  at: string,
): TokenOutcome {
  const sameHolder = before?.kind === 'held' && before.userId === userId ? before : undefined;
  const keepStoredSince =
    before === undefined ||
    (before.kind === 'removed' && !before.users.has(userId)) ||
    (sameHolder?.keepStoredSince ?? false);
  return {
    kind: 'held',
    userId,
    platform: device.platform,
    provider: device.provider,
    telemetry: device.telemetry ?? undefined,
    registeredAt: sameHolder?.registeredAt ?? at,
    updatedAt: at,
    keepStoredSince,
  };
}

function unregister(before: TokenOutcome | undefined, userId: string): TokenOutcome {
  if (before === undefined) return { kind: 'removed', users: new Set([userId]) };
  if (before.kind === 'removed') return { kind: 'removed', users: new Set([...before.users, userId]) };
  if (before.kind === 'held' && before.userId === userId) return { kind: 'gone' };
  return before;
}

/** Folds a batch into one outcome per token: the same result as applying the events one by one. */
function foldDeviceEvents(events: readonly RecordedEvent[]): ReadonlyMap<string, TokenOutcome> {
  const outcomes = new Map<string, TokenOutcome>();
  for (const recorded of events) {
    const event = deviceCodec.parse(recorded);
    const userId = userOfDevicesStream(recorded.streamName);
    const { token } = event.data;
    // Erased with its user (decision 048): the device went with the erasure, and a rebuild skips it.
    if (token === null) continue;
    const before = outcomes.get(token);
    outcomes.set(
      token,
      event.type === 'deviceRegistered'
        ? register(before, userId, event.data, recorded.metadata.occurredAt)
        : unregister(before, userId),
    );
  }
  return outcomes;
}

type Held = Extract<TokenOutcome, { kind: 'held' }>;
const text = (values: readonly string[]) => sql.array([...values], 'text');
const orNull = (values: readonly (string | undefined)[]) =>
  sql.array(
    values.map((v) => v ?? null),
    'text',
  );

async function upsert(
  db: CommonQueryMethods,
  devices: IdentifierSqlToken,
  rows: readonly (Held & { token: string })[],
  overwriteSince: boolean,
): Promise<void> {
  if (rows.length === 0) return;
  const since = overwriteSince ? sql.fragment`, registered_at = EXCLUDED.registered_at` : sql.fragment``;
  const telemetry = (field: keyof DeviceTelemetry) => orNull(rows.map((r) => r.telemetry?.[field]));
  await db.query(sql.unsafe`
    INSERT INTO ${devices} (user_id, token, platform, provider, registered_at, updated_at,
      app_version, os_version, device_lang, hardware_id_digest)
    SELECT u, t, p, v, r::timestamptz, a::timestamptz, av, ov, dl, hd
    FROM unnest(${text(rows.map((r) => r.userId))}, ${text(rows.map((r) => r.token))},
      ${text(rows.map((r) => r.platform))}, ${text(rows.map((r) => r.provider))},
      ${text(rows.map((r) => r.registeredAt))}, ${text(rows.map((r) => r.updatedAt))},
      ${telemetry('appVersion')}, ${telemetry('osVersion')}, ${telemetry('deviceLang')},
      ${telemetry('hardwareIdDigest')}) AS x (u, t, p, v, r, a, av, ov, dl, hd)
    ON CONFLICT (user_id, token) DO UPDATE
    SET platform = EXCLUDED.platform, provider = EXCLUDED.provider, updated_at = EXCLUDED.updated_at,
      app_version = EXCLUDED.app_version, os_version = EXCLUDED.os_version,
      device_lang = EXCLUDED.device_lang, hardware_id_digest = EXCLUDED.hardware_id_digest ${since}`);
}

/**
 * The `devices` read table: one row per (user, token), what push fan-out and the SDK's list read, with the
 * device's newest telemetry (the hardware id only as its keyed digest, decision 047).
 */
export const devicesProjection: Projection<'devices'> = {
  name: 'devices',
  // 2: the telemetry columns.
  version: 2,
  categories: [DEVICES_CATEGORY, ERASURES],
  tables: ['devices'],

  async createTables(db, { devices }) {
    await db.query(sql.unsafe`
      CREATE TABLE ${devices} (
        user_id text NOT NULL,
        token text NOT NULL,
        platform text NOT NULL,
        provider text NOT NULL,
        registered_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        app_version text,
        os_version text,
        device_lang text,
        hardware_id_digest text,
        PRIMARY KEY (user_id, token)
      )`);
    // A token reaches one person. Unique, the planner also knows a token matches one row even before a
    // fresh generation's table has statistics; a plain index was scanned in full for each batch.
    await db.query(sql.unsafe`CREATE UNIQUE INDEX ON ${devices} (token)`);
  },

  // An erased user's devices go with the erasure (decision 048).
  async apply(db, events, tables) {
    await applyAroundErasures(
      events,
      (run) => applyDeviceEvents(db, run, tables),
      async (users) => {
        await db.query(sql.unsafe`DELETE FROM ${tables.devices} WHERE user_id = ANY (${text(users)})`);
      },
    );
  },
};

// A token reaches one person: whoever registered it last. A batch becomes at most five statements.
async function applyDeviceEvents(
  db: CommonQueryMethods,
  events: readonly RecordedEvent[],
  { devices }: Tables<'devices'>,
): Promise<void> {
  const removed: { token: string; userId: string }[] = [];
  const gone: string[] = [];
  const held: (Held & { token: string })[] = [];
  for (const [token, outcome] of foldDeviceEvents(events)) {
    if (outcome.kind === 'removed') for (const userId of outcome.users) removed.push({ token, userId });
    else if (outcome.kind === 'gone') gone.push(token);
    else held.push({ ...outcome, token });
  }
  if (removed.length > 0) {
    await db.query(sql.unsafe`
      DELETE FROM ${devices} d
      USING unnest(${text(removed.map((r) => r.token))}, ${text(removed.map((r) => r.userId))}) AS x (t, u)
      WHERE d.token = x.t AND d.user_id = x.u`);
  }
  if (gone.length > 0) await db.query(sql.unsafe`DELETE FROM ${devices} WHERE token = ANY (${text(gone)})`);
  if (held.length > 0) {
    await db.query(sql.unsafe`
      DELETE FROM ${devices} d
      USING unnest(${text(held.map((h) => h.token))}, ${text(held.map((h) => h.userId))}) AS x (t, u)
      WHERE d.token = x.t AND d.user_id <> x.u`);
  }
  await upsert(
    db,
    devices,
    held.filter((h) => h.keepStoredSince),
    false,
  );
  await upsert(
    db,
    devices,
    held.filter((h) => !h.keepStoredSince),
    true,
  );
}
