// An entity tag: an optional weak prefix and a quoted opaque part, which may itself hold commas (RFC 9110).
const entityTag = /(?:W\/)?("[^"]*")/g;

/**
 * Whether an `If-None-Match` value names `etag`, so the client already holds this version and gets 304
 * (RFC 9110, section 13.1.2): `*`, or any tag of its list by the weak comparison, under which `W/"x"` and
 * `"x"` are the same version.
 */
export function matchesIfNoneMatch(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  // Clients send back the one tag they were given: the common case, on every poll, costs one comparison.
  if (ifNoneMatch === etag || ifNoneMatch.trim() === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const [, tag] of ifNoneMatch.matchAll(entityTag)) if (tag === opaque) return true;
  return false;
}
