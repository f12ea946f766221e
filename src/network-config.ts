/**
 * The configuration of the network around the server (DESIGN §4.10, §4.16): its public URL and the
 * browser origins it answers, the proxies it trusts to say who the client is, the bounds on what
 * one client address may do (the table in address-bounds.ts), and what the built-in server keeps
 * of clients anyone registered and nobody used.
 */
import ipaddr from 'ipaddr.js';
import { ADDRESS_BOUNDS } from './address-bounds.js';
import { ConfigError, wholeNumber, type Env } from './config-values.js';

export interface OriginConfig {
  /** The URL clients reach this server at (VMS_READ_PUBLIC_URL), e.g. behind a proxy. */
  publicUrl?: string;
  /**
   * Browser origins allowed on /mcp besides the server's own, and the only ones CORS answers on
   * /api/v1/* and /mcp (VMS_READ_ALLOWED_ORIGINS).
   */
  allowedOrigins: readonly string[];
}

/** What one client address may do (address-bounds.ts; each 0 turns its bound off). */
export interface AddressBoundsConfig {
  /** VMS_READ_AUTH_FAILURES_PER_MINUTE: wrong credentials a minute, default 20. */
  authFailuresPerMinute: number;
  /** VMS_READ_REGISTRATIONS_PER_HOUR: clients registered an hour, default 20. */
  registrationsPerHour: number;
  /** VMS_READ_ANONYMOUS_PER_MINUTE: requests without a credential a minute, default 600. */
  anonymousPerMinute: number;
  /** VMS_READ_AUTHORIZATIONS_PER_HOUR: authorization requests started an hour, default 300. */
  authorizationsPerHour: number;
}

/** Clients registered at the built-in server that nobody has used yet (DESIGN §4.16). */
export interface UnusedClientsConfig {
  /** VMS_READ_UNUSED_CLIENT_HOURS: how long one may wait for its first grant, default 24. */
  unusedClientHours: number;
  /** VMS_READ_UNUSED_CLIENTS_MAX: how many may exist at once, default 10,000. */
  unusedClientsMax: number;
}

export const UNUSED_CLIENTS_DEFAULTS = { hours: 24, max: 10_000 } as const;

/**
 * One entry of VMS_READ_ALLOWED_ORIGINS as a browser sends it in `Origin` (`scheme://host[:port]`):
 * http and https entries are read by the URL parser (host in lower case, default port dropped);
 * other schemes (a browser extension's) are kept as written. `*` and `null` are refused: the list
 * names the pages that may call with a token, and CORS matches them exactly (docs/api.md "CORS").
 */
function originOf(entry: string): string {
  const refuse = () =>
    new ConfigError(
      'VMS_READ_ALLOWED_ORIGINS',
      'must list origins such as https://app.example.com, comma-separated (no path, * or null)',
    );
  if (!/^[a-z][a-z\d+.-]*:\/\/[^/?#@\s*]+\/?$/i.test(entry) || !URL.canParse(entry)) throw refuse();
  const url = new URL(entry);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return entry.replace(/\/$/, '');
  return url.origin;
}

export function originsOf(env: Env): OriginConfig {
  const allowedOrigins = (env.VMS_READ_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map(originOf);
  const publicUrl = env.VMS_READ_PUBLIC_URL || undefined;
  if (publicUrl !== undefined && !URL.canParse(publicUrl))
    throw new ConfigError(
      'VMS_READ_PUBLIC_URL',
      'must be an absolute URL, e.g. https://vms.example.com',
    );
  return { publicUrl, allowedOrigins };
}

/**
 * VMS_READ_TRUSTED_PROXIES: comma-separated addresses or CIDR ranges (IPv4 or IPv6) of the
 * proxies whose X-Forwarded-For (or Forwarded) is believed; empty by default.
 */
export function trustedProxiesOf(env: Env): string[] {
  const entries = (env.VMS_READ_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid)
      throw new ConfigError(
        'VMS_READ_TRUSTED_PROXIES',
        'must list addresses or CIDR ranges, comma-separated, e.g. 127.0.0.1,10.0.0.0/8,::1',
      );
  }
  return entries;
}

/** The bounds per address, each a whole number (0 turns it off). */
export function addressBoundsOf(env: Env): AddressBoundsConfig {
  const bound = (name: keyof typeof ADDRESS_BOUNDS, unit: string) => {
    const { variable, limit } = ADDRESS_BOUNDS[name];
    return wholeNumber(
      env,
      variable,
      limit,
      0,
      `must be a whole number of ${unit} (0 turns the bound off)`,
    );
  };
  return {
    authFailuresPerMinute: bound('failedAuthentications', 'failures'),
    registrationsPerHour: bound('registrations', 'registrations'),
    anonymousPerMinute: bound('requestsWithoutCredential', 'requests'),
    authorizationsPerHour: bound('authorizations', 'authorization requests'),
  };
}

/**
 * VMS_READ_UNUSED_CLIENT_HOURS, a positive number of hours (fractions allowed), and
 * VMS_READ_UNUSED_CLIENTS_MAX, a whole number of clients of at least 1: the ceiling is what keeps
 * the store and the server's memory bounded when anyone may register, so it has no "off".
 */
export function unusedClientsOf(env: Env): UnusedClientsConfig {
  const value = env.VMS_READ_UNUSED_CLIENT_HOURS;
  const hours = value === undefined || value === '' ? UNUSED_CLIENTS_DEFAULTS.hours : Number(value);
  if (!Number.isFinite(hours) || hours <= 0)
    throw new ConfigError(
      'VMS_READ_UNUSED_CLIENT_HOURS',
      'must be a positive number of hours, e.g. 24 or 0.5',
    );
  const unusedClientsMax = wholeNumber(
    env,
    'VMS_READ_UNUSED_CLIENTS_MAX',
    UNUSED_CLIENTS_DEFAULTS.max,
    1,
    'must be a whole number of clients, at least 1',
  );
  return { unusedClientHours: hours, unusedClientsMax };
}
