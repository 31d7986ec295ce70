import type { AllowedMime, TEXT_MIME } from '../types.ts';
import { bmpCheck } from './bmp.ts';
import { gifCheck } from './gif.ts';
import { jpegCheck } from './jpeg.ts';
import { mp4Check } from './mp4.ts';
import { pdfCheck } from './pdf.ts';
import { pngCheck } from './png.ts';
import type { ContentCheck } from './reader.ts';
import { webpCheck } from './webp.ts';

export type { ContentCheck } from './reader.ts';

/** One structure check per allowed binary type: the file must be exactly one well-formed item. */
export const structureChecks: Readonly<Record<Exclude<AllowedMime, typeof TEXT_MIME>, () => ContentCheck>> = {
  'image/jpeg': jpegCheck,
  'image/png': pngCheck,
  'image/gif': gifCheck,
  'image/webp': webpCheck,
  'image/bmp': bmpCheck,
  'video/mp4': mp4Check,
  'application/pdf': pdfCheck,
};
