/** An answer forced on API calls, to test how a client lives with Intercom's rate limit and outages. */
export interface Fault {
  /** 429 is `rate_limit_exceeded` with the rate-limit headers and no Retry-After; 5xx a server error. */
  readonly status: 429 | 500 | 502 | 503 | 504;
  /** Only calls with this method (e.g. POST, to fail writes while reads pass). */
  readonly method?: string | undefined;
  /** Only calls whose path starts with this. */
  readonly pathPrefix?: string | undefined;
}

interface Plan {
  readonly fault: Fault;
  remaining: number;
  readonly until: number;
}

export interface Faults {
  /** The next `count` matching calls fail. */
  failNext(count: number, fault: Fault): void;
  /** Every matching call fails for `ms` milliseconds. */
  failFor(ms: number, fault: Fault): void;
  clear(): void;
  /** The fault for this call, if any; counts it against its plan. */
  take(method: string, path: string): Fault | undefined;
}

export function createFaults(now: () => number): Faults {
  let plans: Plan[] = [];
  return {
    failNext(count, fault) {
      plans.push({ fault, remaining: count, until: Infinity });
    },
    failFor(ms, fault) {
      plans.push({ fault, remaining: Infinity, until: now() + ms });
    },
    clear() {
      plans = [];
    },
    take(method, path) {
      const time = now();
      plans = plans.filter((plan) => plan.remaining > 0 && plan.until > time);
      const plan = plans.find(
        ({ fault }) =>
          (fault.method === undefined || fault.method.toUpperCase() === method) &&
          (fault.pathPrefix === undefined || path.startsWith(fault.pathPrefix)),
      );
      if (plan) plan.remaining -= 1;
      return plan?.fault;
    },
  };
}
