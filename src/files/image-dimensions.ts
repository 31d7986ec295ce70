import { buffer } from 'node:stream/consumers';
import { imageSize } from 'image-size';
import type { ObjectStorage } from '../integrations/storage/port.ts';

// Every allowed image format states its size in its first bytes; 256 KiB covers JPEGs with large EXIF.
const HEAD_BYTES = 256 * 1024;

/** The width and height a stored image declares, or null when they cannot be read. */
export async function imageDimensions(
  storage: ObjectStorage,
  key: string,
  size: number,
): Promise<{ readonly width: number; readonly height: number } | null> {
  const stored = await storage.get(key, { start: 0, end: Math.min(size, HEAD_BYTES) - 1 });
  if (!stored) return null;
  try {
    const { width, height } = imageSize(new Uint8Array(await buffer(stored.body)));
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}
