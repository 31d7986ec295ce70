import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { complaintStream } from '../../src/events/complaints.ts';
import { complaintsProjection } from '../../src/projections/complaints.ts';
import { useSealedLog } from '../support/sealed-log.ts';

const log = useSealedLog();
const reason = { id: randomUUID(), title: 'Rude operator' };

const attachment = (name: string) => ({
  fileId: randomUUID(),
  storageKey: `uploads/${randomUUID()}`,
  name,
  contentType: 'image/png',
  size: 2048,
});

async function file(userId: string, text: string, names: readonly string[] = []): Promise<string> {
  const id = randomUUID();
  await log.append(complaintStream(id), 'complaintSubmitted', {
    userId,
    reason,
    text,
    conversationId: `conv-${userId}`,
    attachments: names.map(attachment),
    at: new Date().toISOString(),
  });
  return id;
}

const resolve = (id: string) =>
  log.append(complaintStream(id), 'complaintResolved', {
    adminId: 'admin-1',
    note: 'called back',
    at: new Date().toISOString(),
  });

const rowsOf = (generation: number) => log.rows(complaintsProjection, generation, 'complaints');
const filesOf = (generation: number) => log.rows(complaintsProjection, generation, 'complaint_attachments');

describe('the complaints projection, when a user is erased', () => {
  it("detaches the user's complaints from them, drops their text and files, and a rebuild ends the same", async () => {
    const live = 1;
    const resolved = await file('ann', 'ann-text-1', ['ann-photo.png', 'ann-receipt.png']);
    const open = await file('ann', 'ann-text-2');
    const bobs = await file('bob', 'bob-text', ['bob-photo.png']);
    await resolve(resolved);
    await log.follow(complaintsProjection, live);
    const bobBefore = (await rowsOf(live)).filter((r) => r.id === bobs);
    const bobFiles = await filesOf(live);
    expect(bobFiles.filter((f) => f.complaint_id === bobs)).toHaveLength(1);

    await log.erase('ann');
    // Resolved after the erasure, and the same host id files again: a new user's complaint.
    await resolve(open);
    const later = await file('ann', 'ann-text-after', ['ann-new.png']);
    await log.follow(complaintsProjection, live);

    const rows = await rowsOf(live);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows).toHaveLength(4);
    for (const id of [resolved, open]) {
      expect(byId.get(id)).toMatchObject({
        user_id: null,
        text: null,
        reason_id: reason.id,
        reason_title: reason.title,
        status: 'resolved',
        resolved_by: 'admin-1',
        resolution_note: 'called back',
      });
    }
    expect(byId.get(later)).toMatchObject({ user_id: 'ann', text: 'ann-text-after', status: 'open' });
    expect(rows.filter((r) => r.id === bobs)).toEqual(bobBefore);
    const files = await filesOf(live);
    expect(files.map((f) => f.name).sort()).toEqual(['ann-new.png', 'bob-photo.png']);
    expect(JSON.stringify(rows)).not.toMatch(/ann-text-[12]/);

    // What a rebuild reads: the erased fields come back null.
    const [submitted] = await log.store.readStream(complaintStream(resolved));
    expect(submitted?.data).toMatchObject({ text: null, attachments: [{ name: null }, { name: null }] });

    for (const [generation, batchSize] of [
      [2, 1],
      [3, 1000],
    ] as const) {
      await log.rebuild(complaintsProjection, generation, batchSize);
      expect(await rowsOf(generation), `batches of ${batchSize}`).toEqual(rows);
      expect(await filesOf(generation), `batches of ${batchSize}`).toEqual(files);
    }
  });
});
