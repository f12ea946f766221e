/**
 * The environment, read once and checked: every variable vms-read reads, and nothing else in
 * src/ reads process.env. The CLI calls readConfig at start and hands each part what it needs
 * (the service its secret, quota, time limit and origins; the store its pool size; the commands
 * their defaults for --db, --token, --host and --port).
 */

import { ConfigError, wholeNumber, type Env } from './config-values.js';
import {
  addressBoundsOf,
  originsOf,
  trustedProxiesOf,
  unusedClientsOf,
  type AddressBoundsConfig,
  type OriginConfig,
  type UnusedClientsConfig,
} from './network-config.js';
import { IssuerConfigError, parseOAuthIssuers, type OAuthIssuer } from './oauth-issuers.js';

export { ConfigError };
export type { OriginConfig };

export const DEFAULT_QUOTA_PER_MINUTE = 6000;
export const DEFAULT_REPORT_TIMEOUT_MS = 10_000;
/** How long requests in flight may take to finish after SIGTERM (DESIGN §5: drains, exits 0). */
export const DEFAULT_DRAIN_MS = 8000;
export const DEFAULT_PG_POOL_SIZE = 10;
export const DEFAULT_TOMBSTONE_DAYS = 30;
/** DESIGN §4.17: how long the access trail keeps its events. */
export const DEFAULT_AUDIT_DAYS = 400;
/** VMS_READ_AUDIT_REFUSALS_PER_MINUTE's default (DESIGN §4.17). */
export const DEFAULT_AUDIT_REFUSALS_PER_MINUTE = 600;
/** DESIGN §4.14: a failed webhook delivery's first retry gap, and a delivery claim's length. */
export const DEFAULT_WEBHOOK_RETRY_MS = 5000;
export const DEFAULT_WEBHOOK_LEASE_MS = 30_000;

export interface Config extends AddressBoundsConfig, UnusedClientsConfig {
  /** VMS_READ_DB: the database when `--db` is not given. */
  db: string | undefined;
  /** VMS_READ_TOKEN: the token of `mcp` and `token revoke` when `--token` is not given. */
  token: string | undefined;
  /** VMS_READ_SECRET: the cursor key; unset (or empty), one is generated once and kept with the data. */
  secret: string | undefined;
  /** VMS_READ_QUOTA_PER_MINUTE: requests a minute per token, default 6000; 0 turns the quota off. */
  quotaPerMinute: number;
  /**
   * REDIS_URL: where instances share the quota (a redis:// or rediss:// URL); unset (or empty),
   * each instance counts its own requests in memory.
   */
  redisUrl: string | undefined;
  /** VMS_READ_REPORT_TIMEOUT_MS: the time limit of one report query, default 10 s. */
  reportTimeoutMs: number;
  /** VMS_READ_DRAIN_MS: how long requests in flight may finish after SIGTERM, default 8 s. */
  drainMs: number;
  /** VMS_READ_SEND_TIMEOUT_MS: how long a client may take to read an answer, default 30 s. */
  sendTimeoutMs: number;
  /** VMS_READ_UNSENT_MB: answers' bytes clients have not read, in all, before new requests get 503. */
  unsentMb: number;
  /** VMS_READ_CLIENT_UNSENT_MB: one client's unread answers before its new requests get 429. */
  clientUnsentMb: number;
  /** VMS_READ_CLIENT_PENDING: one client's requests not yet answered in full, at most. */
  clientPending: number;
  /** VMS_READ_CLIENT_PIPELINED: of them, those queued behind another on their connection. */
  clientPipelined: number;
  /** VMS_READ_PUBLIC_URL and VMS_READ_ALLOWED_ORIGINS (comma-separated). */
  origins: OriginConfig;
  /** VMS_READ_PG_POOL_SIZE: connections to PostgreSQL, default 10. */
  pgPoolSize: number;
  /**
   * VMS_READ_REPORT_ENGINE: `columnar` (default: reports read a DuckDB copy of the report facts,
   * kept at the row store's data stamp) or `row` (reports read the row store itself).
   */
  reportEngine: 'columnar' | 'row';
  /**
   * VMS_READ_FACTS_DIR: where columnar copies are kept; by default beside a SQLite file, or in
   * the system's temporary directory for PostgreSQL. Each database gets a folder of its own.
   */
  factsDir: string | undefined;
  /** VMS_READ_FACTS_MEMORY: DuckDB's memory limit, e.g. 256MB or 1GB (default 96MB serving, 256MB writing a copy). */
  factsMemory: string | undefined;
  /**
   * VMS_READ_ROLLUPS: `on` (default: reports the columnar copy's rollups cover read them) or
   * `off` (every report reads the facts; for comparing).
   */
  rollups: boolean;
  /**
   * VMS_READ_CACHE: `on` (default) keeps answers for repeats (report results by data stamp,
   * resource reads while the store is unchanged); `off` computes every answer (measurements).
   */
  cache: boolean;
  /** LOG_LEVEL: the pino level of the server's (and `mcp`'s stderr) log, default info; as given. */
  logLevel: string;
  /** HOST: where `serve` and `demo` listen when `--host` is not given. */
  host: string | undefined;
  /** PORT: the port when `--port` is not given; checked as `--port` is, where it is used. */
  port: string | undefined;
  /**
   * VMS_READ_METRICS: `1` serves Prometheus metrics at GET /metrics (no token; keep it off the
   * public network); unset, empty or `0` leaves them off, and /metrics is 404.
   */
  metrics: boolean;
  /**
   * VMS_READ_OAUTH_ISSUERS: identity providers whose JWT access tokens are accepted, with how
   * their claims map to workspace, role, worker, supplier and scopes (oauth-issuers.ts).
   */
  oauthIssuers: OAuthIssuer[];
  /**
   * VMS_READ_OAUTH_SERVER: `on` (default) makes the server an OAuth authorization server of its
   * own (sign-in with an access key; src/oauth-server/), `off` leaves it a resource server only.
   */
  oauthServer: boolean;
  /**
   * VMS_READ_WEB_ISSUER and VMS_READ_WEB_CLIENT_ID: the organisation's authorization server the
   * web page signs in with, and the page's client id there; unset, the built-in server.
   */
  webSignIn: { issuer: string; clientId: string } | undefined;
  /**
   * VMS_READ_TOMBSTONE_DAYS: how many days the change feed keeps tombstones of deleted records
   * and of records that left a token's view, default 30; 0 removes them at the load that made them.
   */
  tombstoneDays: number;
  /**
   * VMS_READ_WEBHOOK_ALLOW_INSECURE: `1` lets webhooks go to http URLs and private or loopback
   * addresses (tests, a private network); unset, empty or `0`: https and public addresses only.
   */
  webhookAllowInsecure: boolean;
  /**
   * VMS_READ_TRUSTED_PROXIES: the proxies whose X-Forwarded-For (or Forwarded) says who the
   * client is (addresses and CIDR ranges); empty, those headers are ignored.
   */
  trustedProxies: string[];
  /**
   * VMS_READ_PREFERRED_ISSUER: the authorization server named first in the resource metadata
   * (MCP hosts sign in with it): `built-in` or an issuer of VMS_READ_OAUTH_ISSUERS; unset, the
   * page's (VMS_READ_WEB_ISSUER) when it is one of them, else the built-in server.
   */
  preferredIssuer: string | undefined;
  /**
   * VMS_READ_AUDIT: `on` (default) keeps the access trail, an event per answered request
   * (DESIGN §4.17); `off` keeps none.
   */
  audit: boolean;
  /** VMS_READ_AUDIT_DAYS: how many days the access trail keeps its events, default 400. */
  auditDays: number;
  /**
   * VMS_READ_AUDIT_REFUSALS_PER_MINUTE: counted refusals' events a minute (one per address or
   * caller), default 600; past it one more event counts the rest.
   */
  auditRefusalsPerMinute: number;
  /** VMS_READ_WEBHOOK_RETRY_MS: the gap before a failed delivery's first retry, default 5000. */
  webhookRetryMs: number;
  /**
   * VMS_READ_WEBHOOK_LEASE_MS: how long an instance's claim on a subscription lasts unrenewed,
   * default 30000: how soon another instance takes over from one that died (a try holds it
   * through its time limit and this long after, webhook-leases.ts).
   */
  webhookLeaseMs: number;
}

/** One of the listed values; `fallback` when unset or empty. */
function oneOf<T extends string>(env: Env, variable: string, values: readonly T[], fallback: T): T {
  const value = env[variable];
  if (value === undefined || value === '') return fallback;
  if (!(values as readonly string[]).includes(value))
    throw new ConfigError(variable, `must be one of ${values.join(', ')}`);
  return value as T;
}

/** A memory size as DuckDB reads one (e.g. 256MB, 1.5GB, 512MiB); undefined when unset. */
function memorySize(env: Env, variable: string): string | undefined {
  const value = env[variable];
  if (value === undefined || value === '') return undefined;
  if (!/^\d+(\.\d+)?(KB|MB|GB|KiB|MiB|GiB)$/.test(value))
    throw new ConfigError(variable, 'must be a size such as 256MB or 1GB');
  return value;
}

/** A switch: `1` on; unset, empty or `0` off; anything else is refused rather than guessed. */
function onOff(env: Env, variable: string): boolean {
  const value = env[variable];
  if (value === undefined || value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new ConfigError(variable, 'must be 1 (on) or 0 (off)');
}

/** A Redis URL (redis://, or rediss:// for TLS) as ioredis reads one; undefined when unset. */
function redisUrlOf(env: Env): string | undefined {
  const value = env.REDIS_URL;
  if (value === undefined || value === '') return undefined;
  const protocol = URL.canParse(value) ? new URL(value).protocol : '';
  if (protocol !== 'redis:' && protocol !== 'rediss:')
    throw new ConfigError(
      'REDIS_URL',
      'must be a redis:// or rediss:// URL, e.g. redis://localhost:6379',
    );
  return value;
}

/** The shortest cursor key taken: a secret anyone could guess would let them forge cursors. */
export const MIN_SECRET_LENGTH = 32;

/** VMS_READ_SECRET: unset or empty, undefined (one is generated); else at least 32 characters. */
function secretOf(env: Env): string | undefined {
  const value = env.VMS_READ_SECRET;
  if (value === undefined || value === '') return undefined;
  if (value.length < MIN_SECRET_LENGTH)
    throw new ConfigError(
      'VMS_READ_SECRET',
      `must be at least ${MIN_SECRET_LENGTH} characters (e.g. the output of openssl rand -base64 32), or unset`,
    );
  return value;
}

function oauthIssuersOf(env: Env): OAuthIssuer[] {
  try {
    return parseOAuthIssuers(env.VMS_READ_OAUTH_ISSUERS);
  } catch (error) {
    if (error instanceof IssuerConfigError)
      throw new ConfigError('VMS_READ_OAUTH_ISSUERS', error.message);
    throw error;
  }
}

function webSignInOf(env: Env): Config['webSignIn'] {
  const issuer = env.VMS_READ_WEB_ISSUER || undefined;
  const clientId = env.VMS_READ_WEB_CLIENT_ID || undefined;
  if (issuer !== undefined) {
    try {
      parseOAuthIssuers(JSON.stringify([{ issuer }]));
    } catch {
      throw new ConfigError(
        'VMS_READ_WEB_ISSUER',
        'must be an https URL (http only on a loopback address), the issuer as its tokens name it',
      );
    }
  }
  if (issuer === undefined && clientId === undefined) return undefined;
  if (issuer === undefined)
    throw new ConfigError(
      'VMS_READ_WEB_ISSUER',
      'must be set together with VMS_READ_WEB_CLIENT_ID',
    );
  if (clientId === undefined)
    throw new ConfigError(
      'VMS_READ_WEB_CLIENT_ID',
      'must be set together with VMS_READ_WEB_ISSUER',
    );
  return { issuer, clientId };
}

/** VMS_READ_PREFERRED_ISSUER: `built-in`, or one of VMS_READ_OAUTH_ISSUERS' issuers. */
function preferredIssuerOf(env: Env): string | undefined {
  const value = env.VMS_READ_PREFERRED_ISSUER || undefined;
  if (value === undefined || value === 'built-in') return value;
  if (!oauthIssuersOf(env).some((entry) => entry.issuer === value))
    throw new ConfigError(
      'VMS_READ_PREFERRED_ISSUER',
      'must be built-in or the issuer of one entry of VMS_READ_OAUTH_ISSUERS',
    );
  return value;
}

/** Reads and checks the environment; throws ConfigError on the first bad value. */
export function readConfig(env: Env = process.env): Config {
  return {
    db: env.VMS_READ_DB,
    token: env.VMS_READ_TOKEN,
    secret: secretOf(env),
    quotaPerMinute: wholeNumber(
      env,
      'VMS_READ_QUOTA_PER_MINUTE',
      DEFAULT_QUOTA_PER_MINUTE,
      0,
      'must be a whole number (0 turns the quota off)',
    ),
    redisUrl: redisUrlOf(env),
    reportTimeoutMs: wholeNumber(
      env,
      'VMS_READ_REPORT_TIMEOUT_MS',
      DEFAULT_REPORT_TIMEOUT_MS,
      1,
      'must be a whole number of milliseconds',
    ),
    drainMs: wholeNumber(
      env,
      'VMS_READ_DRAIN_MS',
      DEFAULT_DRAIN_MS,
      0,
      'must be a whole number of milliseconds',
    ),
    sendTimeoutMs: wholeNumber(
      env,
      'VMS_READ_SEND_TIMEOUT_MS',
      30_000,
      1,
      'must be a whole number of milliseconds',
    ),
    unsentMb: wholeNumber(env, 'VMS_READ_UNSENT_MB', 64, 1, 'must be a whole number of megabytes'),
    clientUnsentMb: wholeNumber(
      env,
      'VMS_READ_CLIENT_UNSENT_MB',
      16,
      1,
      'must be a whole number of megabytes',
    ),
    clientPending: wholeNumber(
      env,
      'VMS_READ_CLIENT_PENDING',
      256,
      1,
      'must be a whole number of requests, at least 1',
    ),
    clientPipelined: wholeNumber(
      env,
      'VMS_READ_CLIENT_PIPELINED',
      16,
      0,
      'must be a whole number of requests',
    ),
    origins: originsOf(env),
    pgPoolSize: wholeNumber(
      env,
      'VMS_READ_PG_POOL_SIZE',
      DEFAULT_PG_POOL_SIZE,
      1,
      'must be a whole number of connections, at least 1',
    ),
    reportEngine: oneOf(env, 'VMS_READ_REPORT_ENGINE', ['columnar', 'row'] as const, 'columnar'),
    factsDir: env.VMS_READ_FACTS_DIR || undefined,
    factsMemory: memorySize(env, 'VMS_READ_FACTS_MEMORY'),
    rollups: oneOf(env, 'VMS_READ_ROLLUPS', ['on', 'off'] as const, 'on') === 'on',
    cache: oneOf(env, 'VMS_READ_CACHE', ['on', 'off'] as const, 'on') === 'on',
    logLevel: env.LOG_LEVEL ?? 'info',
    host: env.HOST,
    port: env.PORT,
    metrics: onOff(env, 'VMS_READ_METRICS'),
    oauthIssuers: oauthIssuersOf(env),
    oauthServer: oneOf(env, 'VMS_READ_OAUTH_SERVER', ['on', 'off'] as const, 'on') === 'on',
    webSignIn: webSignInOf(env),
    tombstoneDays: wholeNumber(
      env,
      'VMS_READ_TOMBSTONE_DAYS',
      DEFAULT_TOMBSTONE_DAYS,
      0,
      'must be a whole number of days (0 removes tombstones at once)',
    ),
    webhookAllowInsecure: onOff(env, 'VMS_READ_WEBHOOK_ALLOW_INSECURE'),
    ...addressBoundsOf(env),
    trustedProxies: trustedProxiesOf(env),
    ...unusedClientsOf(env),
    preferredIssuer: preferredIssuerOf(env),
    audit: oneOf(env, 'VMS_READ_AUDIT', ['on', 'off'] as const, 'on') === 'on',
    auditDays: wholeNumber(
      env,
      'VMS_READ_AUDIT_DAYS',
      DEFAULT_AUDIT_DAYS,
      1,
      'must be a whole number of days, at least 1',
    ),
    auditRefusalsPerMinute: wholeNumber(
      env,
      'VMS_READ_AUDIT_REFUSALS_PER_MINUTE',
      DEFAULT_AUDIT_REFUSALS_PER_MINUTE,
      0,
      'must be a whole number of events (0: one event a minute counts every refusal)',
    ),
    webhookRetryMs: wholeNumber(
      env,
      'VMS_READ_WEBHOOK_RETRY_MS',
      DEFAULT_WEBHOOK_RETRY_MS,
      1,
      'must be a whole number of milliseconds, at least 1',
    ),
    webhookLeaseMs: wholeNumber(
      env,
      'VMS_READ_WEBHOOK_LEASE_MS',
      DEFAULT_WEBHOOK_LEASE_MS,
      1000,
      'must be a whole number of milliseconds, at least 1000',
    ),
  };
}
