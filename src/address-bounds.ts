/**
 * What one client address may do (DESIGN §4.16), in one table: each bound's environment variable,
 * its default, and the window it counts in. The address is decided once, where a request enters
 * (`src/http/client-address.ts`, with VMS_READ_TRUSTED_PROXIES); every bound below counts by it.
 * Counts are kept in this process's memory: each instance bounds what reaches it.
 */
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface AddressBound {
  /** The environment variable that sets `limit` (0 turns the bound off). */
  variable: string;
  limit: number;
  /** The window the limit counts in, in milliseconds. */
  windowMs: number;
  /** What is counted, as docs/limits-and-faults.md says it. */
  counts: string;
}

export const ADDRESS_BOUNDS = {
  failedAuthentications: {
    variable: 'VMS_READ_AUTH_FAILURES_PER_MINUTE',
    limit: 20,
    windowMs: 60_000,
    counts:
      'wrong credentials presented (an access key, an OAuth access or refresh token, a code, a key typed on the sign-in page); a request without one never counts',
  },
  registrations: {
    variable: 'VMS_READ_REGISTRATIONS_PER_HOUR',
    limit: 20,
    windowMs: 3_600_000,
    counts: 'clients registered at /oauth/register (RFC 7591)',
  },
  authorizations: {
    variable: 'VMS_READ_AUTHORIZATIONS_PER_HOUR',
    limit: 300,
    windowMs: 3_600_000,
    counts:
      'authorization requests started at /oauth/authorize (each keeps its parameters until it ends or expires, ten minutes later)',
  },
  requestsWithoutCredential: {
    variable: 'VMS_READ_ANONYMOUS_PER_MINUTE',
    limit: 600,
    windowMs: 60_000,
    counts:
      'requests without an Authorization header (discovery, the page and its files, the sign-in pages, /openapi.json), /healthz and /metrics aside',
  },
} as const satisfies Record<string, AddressBound>;

export type AddressBoundName = keyof typeof ADDRESS_BOUNDS;

/**
 * The key an address is counted under: an IPv4 address (an IPv4-mapped IPv6 one as its IPv4
 * address) as it is; an IPv6 address by its /64, the block one host or one home gets, so an
 * attacker holding a /64 does not get 2^64 budgets. Anything else (an obfuscated `Forwarded`
 * identifier a trusted proxy wrote) as it is.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}

/**
 * Counts per address for one bound of the table, in fixed windows, through rate-limiter-flexible's
 * in-memory limiter (a window starts at an address's first count and lasts the bound's window):
 * `count` adds one, `waitFor` says how many seconds an address at its limit must wait (0 when it
 * may go on), `take` does both for what is itself the counted thing; each wait said is a refusal
 * its caller makes, told to `refused`. A limit of 0 counts nothing. An address's window is
 * forgotten when it ends, so memory follows the addresses seen within one window.
 */
export class AddressWindows {
  private readonly limiter: RateLimiterMemory | null;
  readonly windowMs: number;

  constructor(
    readonly bound: AddressBoundName,
    readonly limit: number = ADDRESS_BOUNDS[bound].limit,
    /** Told of each refusal (every `waitFor` or `take` that says wait): the metrics. */
    private readonly refused: (bound: AddressBoundName) => void = () => {},
  ) {
    this.windowMs = ADDRESS_BOUNDS[bound].windowMs;
    this.limiter =
      limit > 0 ? new RateLimiterMemory({ points: limit, duration: this.windowMs / 1000 }) : null;
  }

  /** Seconds until `address` is under its limit again; 0 when it is under it now. */
  async waitFor(address: string): Promise<number> {
    const state = await this.limiter?.get(addressKey(address));
    if (!state || state.consumedPoints < this.limit) return 0;
    this.refused(this.bound);
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }

  /** Counts one for `address`. */
  async count(address: string): Promise<void> {
    await this.limiter?.penalty(addressKey(address), 1);
  }

  /** Counts one for what is itself the counted thing: 0 when within the limit, else the wait. */
  async take(address: string): Promise<number> {
    if (!this.limiter) return 0;
    try {
      await this.limiter.consume(addressKey(address));
      return 0;
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      this.refused(this.bound);
      return Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
    }
  }
}
