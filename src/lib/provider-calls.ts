import { Counter, type Registry } from 'prom-client';

/** `provider_requests_total`: every request this process made to a provider, by how it ended. */
export const PROVIDER_REQUESTS_METRIC = 'provider_requests_total';

/**
 * How one provider request ended: the HTTP status it answered with, `timeout` when our own deadline cut
 * it off, `error` when no answer came (connection refused or reset, DNS, a library failure before any
 * answer).
 */
export type ProviderCallStatus = number | 'timeout' | 'error';

export interface ProviderCall {
  /** `intercom`, `fcm`, `telegram`. */
  readonly provider: string;
  readonly method: string;
  /** The endpoint's template (`/conversations/{id}`, `sendMessage`): never an expanded path or an id. */
  readonly route: string;
  readonly status: ProviderCallStatus;
  /** Requests that ended alike (one FCM batch sends one request per message). Default 1. */
  readonly count?: number;
}

/** Where an integration reports each request it made; a no-op when nothing scrapes this process. */
export interface ProviderCalls {
  record(call: ProviderCall): void;
}

export const noProviderCalls: ProviderCalls = { record: () => undefined };

/**
 * The provider request counter on `registry`, shared by every integration that reports there: the first
 * caller registers it, later callers (the Intercom client, the push senders) get the same one.
 */
export function providerCalls(registry: Registry): ProviderCalls {
  const existing = registry.getSingleMetric(PROVIDER_REQUESTS_METRIC);
  const counter =
    existing instanceof Counter
      ? (existing as Counter<'provider' | 'method' | 'route' | 'status'>)
      : new Counter({
          name: PROVIDER_REQUESTS_METRIC,
          help: 'Requests this process made to a provider (Intercom, FCM, Telegram) by endpoint template and HTTP status, or timeout/error when no answer came',
          labelNames: ['provider', 'method', 'route', 'status'] as const,
          registers: [registry],
        });
  return {
    record: ({ provider, method, route, status, count = 1 }) => {
      counter.inc({ provider, method, route, status: String(status) }, count);
    },
  };
}
