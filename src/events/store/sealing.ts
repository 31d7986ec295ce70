import { open, seal } from '../../lib/sealed-box.ts';
import type { EventToAppend, Json, RecordedEvent } from '../envelope.ts';
import { mapPath, personalData, type PersonalFields } from '../personal-data.ts';
import { noUpcast, type Upcast } from '../upcasting.ts';
import type { DataKeys } from './data-keys.ts';
import type { EventStore } from './port.ts';

/**
 * Crypto-shredding around any event store (decision 048): the personal fields of `personalData` are
 * sealed with their user's data key on the way in and opened on the way out, so deciders, projections
 * and replays see plain values, and the store never holds them in the clear. A field whose key was
 * erased reads as null. A field stored before sealing began reads as it was stored, until
 * `events seal` seals it in place.
 */
/** A sealed field as stored: the data key's id and the box. */
interface Sealed {
  readonly sealed: 'v1';
  readonly key: string;
  readonly box: string;
}

/**
 * The shape checked by hand, not by a schema: it runs for every personal field of every event read. A box
 * that is not what it claims fails to open (the tag), and a key id that is not one finds no key.
 */
const asSealed = (value: Json): Sealed | null =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  value.sealed === 'v1' &&
  typeof value.key === 'string' &&
  typeof value.box === 'string'
    ? (value as unknown as Sealed)
    : null;

/** Whether a stored field is a sealed box (a field from before sealing is its plain value). */
export const isSealed = (value: Json): boolean => asSealed(value) !== null;

/** What binds a box to its place: a box moved to another event or field does not open. */
const context = (eventId: string, path: string) => `${eventId}/${path}`;

function fieldsOf(type: string): PersonalFields | undefined {
  return Object.hasOwn(personalData, type) ? personalData[type] : undefined;
}

/** Told of each box as it is sealed: the box, where it belongs, and the plain value it holds. */
type OnSealed = (box: string, context: string, value: Json) => void;

/**
 * The plain strings this process sealed lately, by box: its own projections read the events back within
 * milliseconds and need not open what it has just sealed. A box is taken from here only in the event and
 * field it was sealed for, and only once its key was found (an erased key still reads as null). Strings
 * only, so that no two readers share an object.
 */
function recentlySealed(max: number) {
  const boxes = new Map<string, { readonly context: string; readonly value: string }>();
  const add: OnSealed = (box, at, value) => {
    if (typeof value !== 'string') return;
    boxes.set(box, { context: at, value });
    if (boxes.size <= max) return;
    const oldest = boxes.keys().next();
    if (!oldest.done) boxes.delete(oldest.value);
  };
  const find = (box: string, at: string): string | undefined => {
    const found = boxes.get(box);
    return found?.context === at ? found.value : undefined;
  };
  return { add, find };
}

/** Seals the personal fields of one event with its subject's key (nothing to seal: the event as it is). */
export async function sealEvent(
  keys: Pick<DataKeys, 'keyOf'>,
  stream: string,
  event: Pick<EventToAppend, 'id' | 'type' | 'data'>,
  onSealed?: OnSealed,
): Promise<Json> {
  const fields = fieldsOf(event.type);
  if (!fields) return event.data;
  let data = event.data;
  let key: { id: string; key: Buffer } | undefined;
  for (const path of fields.paths) {
    const plain: { path: string; value: Json }[] = [];
    mapPath(data, path, (value) => {
      if (value !== null && !asSealed(value)) plain.push({ path, value });
      return value;
    });
    if (plain.length === 0) continue;
    key ??= await keys.keyOf(fields.subject(event.data, stream));
    const { id, key: secret } = key;
    const at = context(event.id, path);
    data = mapPath(data, path, (value) => {
      if (value === null || asSealed(value)) return value;
      const box = seal(secret, Buffer.from(JSON.stringify(value), 'utf8'), at).toString('base64');
      onSealed?.(box, at, value);
      return { sealed: 'v1', key: id, box };
    });
  }
  return data;
}

/**
 * Opens the sealed fields of a batch with one lookup of their keys; those of the `unopened` types read as
 * null.
 */
async function openEvents(
  keys: Pick<DataKeys, 'byIds'>,
  events: readonly RecordedEvent[],
  unopened: ReadonlySet<string>,
  recent: Pick<ReturnType<typeof recentlySealed>, 'find'>,
): Promise<RecordedEvent[]> {
  const boxes: { readonly key: string; readonly wanted: boolean }[] = [];
  for (const event of events) {
    const fields = fieldsOf(event.type);
    if (!fields) continue;
    const wanted = !unopened.has(event.type);
    for (const path of fields.paths)
      mapPath(event.data, path, (value) => {
        const sealed = asSealed(value);
        if (sealed) boxes.push({ key: sealed.key, wanted });
        return value;
      });
  }
  if (boxes.length === 0) return [...events];
  const ids = new Set(boxes.filter((b) => b.wanted).map((b) => b.key));
  const found = ids.size === 0 ? new Map<string, null>() : await keys.byIds([...ids]);
  return events.map((event) => {
    const fields = fieldsOf(event.type);
    if (!fields) return event;
    const wanted = !unopened.has(event.type);
    let data = event.data;
    for (const path of fields.paths)
      data = mapPath(data, path, (value) => {
        const sealed = asSealed(value);
        if (!sealed) return value;
        const key = wanted ? (found.get(sealed.key) ?? null) : null;
        if (key === null) return null;
        const at = context(event.id, path);
        return (
          recent.find(sealed.box, at) ??
          (JSON.parse(open(key, Buffer.from(sealed.box, 'base64'), at).toString('utf8')) as Json)
        );
      });
    return data === event.data ? event : { ...event, data };
  });
}

/**
 * `store` sealed by `keys`. Build `store` without upcasting and pass it here instead: old versions are
 * brought up after their fields are opened, so an upcaster sees plain values.
 */
export function withSealing(store: EventStore, keys: DataKeys, upcast: Upcast = noUpcast): EventStore {
  // About a second of comments at full speed; the live projections read within tens of milliseconds.
  const recent = recentlySealed(2_048);
  const read = async (events: readonly RecordedEvent[], unopened?: readonly string[]) =>
    (await openEvents(keys, events, new Set(unopened), recent)).map(upcast);
  return {
    kind: store.kind,
    async append(stream, events, expected, options) {
      const sealed = await Promise.all(
        events.map(async (event) => ({ ...event, data: await sealEvent(keys, stream, event, recent.add) })),
      );
      return store.append(stream, sealed, expected, options);
    },
    readStream: async (stream, options) => read(await store.readStream(stream, options)),
    readAll: async (options) => read(await store.readAll(options), options.unopened),
    async *subscribe(options) {
      for await (const batch of store.subscribe(options)) yield await read(batch, options.unopened);
    },
    prepareFor(userId) {
      // The append asks again and meets a failure there, where a caller handles it.
      keys.keyOf(userId).catch(() => undefined);
    },
    headPosition: (categories) => store.headPosition(categories),
    ping: () => store.ping(),
    async close() {
      await store.close();
      await keys.close();
    },
  };
}
