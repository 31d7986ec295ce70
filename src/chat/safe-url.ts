/** Schemes a link in a support message may use: the web, e-mail and the phone, never script or data. */
export const LINK_SCHEMES: readonly string[] = ['https', 'http', 'mailto', 'tel'];
/** Schemes an image may be loaded from: no `data:` (it can carry SVG with script) and nothing local. */
export const IMAGE_SCHEMES: readonly string[] = ['https', 'http'];

/**
 * The URL, absolute and normalised by the WHATWG parser, when its scheme is allowed; otherwise null.
 * Parsing, rather than matching the text, means spaces, tabs, newlines and odd case cannot hide a
 * `javascript:` scheme. Relative URLs are refused: in an app there is no page to resolve them against.
 */
export function allowedUrl(raw: string | undefined, schemes: readonly string[]): string | null {
  if (raw === undefined) return null;
  const url = URL.parse(raw.trim());
  if (url === null || !schemes.includes(url.protocol.slice(0, -1))) return null;
  return url.href;
}
