import type { Config } from '../../config.ts';

/** Intercom's API hosts, one per data-hosting region (INTEGRATIONS.md). */
export const INTERCOM_REGION_URLS = {
  us: 'https://api.intercom.io',
  eu: 'https://api.eu.intercom.io',
  au: 'https://api.au.intercom.io',
} as const satisfies Record<Config['SUPPORT_REGION'], string>;

export type IntercomRegion = keyof typeof INTERCOM_REGION_URLS;

/**
 * Where Intercom calls go: the region's host, or `SUPPORT_BASE_URL` (the sandbox, tests) outside
 * production. Production refuses a free base URL instead of ignoring it: it would send the access token
 * to whatever host it names, and a silently ignored setting hides a misconfiguration.
 */
export function intercomBaseUrl(
  config: Pick<Config, 'NODE_ENV' | 'SUPPORT_REGION' | 'SUPPORT_BASE_URL'>,
): string {
  if (config.SUPPORT_BASE_URL === undefined) return INTERCOM_REGION_URLS[config.SUPPORT_REGION];
  if (config.NODE_ENV === 'production') {
    throw new Error(
      'SUPPORT_BASE_URL is refused in production: Intercom is reached by SUPPORT_REGION (us, eu, au) only',
    );
  }
  return config.SUPPORT_BASE_URL.replace(/\/+$/, '');
}
