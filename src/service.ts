import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AccessTokenVerifier } from './auth/access-tokens.js';
import type { OwnTokens } from './auth/own-tokens.js';
import { storeIdLookup } from './audit/id-lookup.js';
import { AuditTrail } from './audit/trail.js';
import type { AnswerSink } from './operations/answered.js';
import { createQuota, type Quota } from './auth/quota.js';
import type { QuotaLog } from './auth/redis-quota.js';
import {
  DEFAULT_QUOTA_PER_MINUTE,
  DEFAULT_REPORT_TIMEOUT_MS,
  type Config,
  type OriginConfig,
} from './config.js';
import { buildApp } from './http/app.js';
import { loadMcpEngine } from './http/mcp-route.js';
import { loadFilterGrammar } from './odata/filter-expression.js';
import { serverOrigin, type ServerOrigin } from './http/server-origin.js';
import { setUpIdentity, type IdentityOptions } from './identity.js';
import type { OAuthIssuer } from './oauth-issuers.js';
import type { SlowReaderLimits } from './http/slow-readers.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { Executor } from './operations/executor.js';
import { OPERATIONS } from './operations/registry.js';
import { FEED_OPERATION_NAMES } from './odata/feed-operations.js';
import { ReportGate } from './operations/report-gate.js';
import { StoreTurns } from './operations/store-turns.js';
import { createCursorCodec } from './paging/cursor.js';
import { CatalogCache } from './operations/catalog-cache.js';
import { REPORT_CACHE_BOUNDS, ResultCache } from './operations/result-cache.js';
import type { ReportFacts, Store, Workspace } from './store/store.js';
import { warmReports, type WarmUp } from './operations/warm-up.js';
import { WebhookDelivery, type DeliverySettings } from './webhooks/delivery.js';

const MB = 1024 * 1024;

export interface ServiceOptions {
  store: Store;
  /** What reports read; by default the store itself (serve passes the columnar copy). */
  facts?: ReportFacts;
  /** Cursor key (VMS_READ_SECRET); by default one generated once and kept with the data. */
  secret?: string;
  /** Requests a minute per token (VMS_READ_QUOTA_PER_MINUTE), default 6000; 0 turns the quota off. */
  quotaPerMinute?: number;
  /** VMS_READ_AUTH_FAILURES_PER_MINUTE: failed authentications a minute per address, default 20; 0 off. */
  authFailuresPerMinute?: number;
  /** REDIS_URL: count the quota in this Redis, shared with every instance pointing at it. */
  redisUrl?: string;
  /** Where the shared quota reports Redis outages; createService uses the app's logger. */
  quotaLog?: QuotaLog;
  logger?: boolean | Record<string, unknown>;
  now?: () => Date;
  /** Time limit of one report query (VMS_READ_REPORT_TIMEOUT_MS), default 10 s. */
  reportTimeoutMs?: number;
  /** The public URL and browser origins allowed on /mcp; by default none beyond the server's own. */
  origins?: OriginConfig;
  /** Report queries that may wait for a turn beyond those running; default 8 per running one. */
  reportQueue?: number;
  /** Keep report results for repeats (default); false only to measure the engines. */
  cacheReports?: boolean;
  /** Keep answers of resource reads for repeats while the store is unchanged (default). */
  cacheReads?: boolean;
  /** Count requests and serve them at GET /metrics (VMS_READ_METRICS=1); off by default. */
  metrics?: boolean;
  /** Bounds on answers clients do not read (VMS_READ_SEND_TIMEOUT_MS, VMS_READ_UNSENT_MB). */
  slowReaders?: Partial<SlowReaderLimits>;
  /** Identity providers whose JWT access tokens are accepted (VMS_READ_OAUTH_ISSUERS). */
  oauthIssuers?: readonly OAuthIssuer[];
  /** Checks those tokens; createService makes one for its app's resource identifiers. */
  accessTokens?: AccessTokenVerifier;
  /** The built-in server's access tokens (createService makes them with the server). */
  ownTokens?: OwnTokens;
  /** Where answered requests go (createService makes the access trail when `audit` is on). */
  answers?: AnswerSink;
  /** The built-in authorization server (VMS_READ_OAUTH_SERVER): off unless asked for here. */
  oauthServer?: boolean;
  /** The demo accounts its sign-in page offers (`vms-read demo`). */
  demoAccounts?: IdentityOptions['demoAccounts'];
  /** How it fetches client ID metadata documents: tests only (oidc-provider's by default). */
  oauthFetch?: IdentityOptions['oauthFetch'];
  /** The organisation's authorization server the web page signs in with (VMS_READ_WEB_ISSUER). */
  webSignIn?: Config['webSignIn'];
  /**
   * VMS_READ_TOMBSTONE_DAYS: the change feed's tombstones older than this are removed hourly
   * (and by every load); unset, the service sweeps none itself.
   */
  tombstoneDays?: number;
  /** Deliver the webhook subscriptions (DESIGN §4.14) with these settings; `serve` always does. */
  webhooks?: DeliverySettings;
  /** VMS_READ_TRUSTED_PROXIES: whose forwarding headers say the client's address. */
  trustedProxies?: readonly string[];
  /** VMS_READ_ANONYMOUS_PER_MINUTE: requests without a credential an address may make a minute. */
  anonymousPerMinute?: number;
  /**
   * VMS_READ_REGISTRATIONS_PER_HOUR, _AUTHORIZATIONS_PER_HOUR, _UNUSED_CLIENT_HOURS and
   * _UNUSED_CLIENTS_MAX (the built-in server).
   */
  registrationsPerHour?: number;
  authorizationsPerHour?: number;
  unusedClientHours?: number;
  unusedClientsMax?: number;
  /** VMS_READ_PREFERRED_ISSUER: the authorization server MCP hosts are sent to first. */
  preferredIssuer?: string;
  /** VMS_READ_AUDIT: keep the access trail (DESIGN §4.17); off unless asked for here. */
  audit?: boolean;
  /** VMS_READ_AUDIT_DAYS: how long the trail keeps its events (removed hourly). */
  auditDays?: number;
  /** VMS_READ_AUDIT_REFUSALS_PER_MINUTE: counted refusals' events a minute, then one for the rest. */
  auditRefusalsPerMinute?: number;
}

/** How often a server removes tombstones past the horizon (DESIGN §4.13: at least hourly). */
export const TOMBSTONE_SWEEP_MS = 3_600_000;

/** DESIGN §4.1: a request the store does not answer within 2 s gets 503 `unavailable`. */
export const STORE_TIMEOUT_MS = 2000;

/** The cursor secret: the configured one (VMS_READ_SECRET), or one generated on first use and stored with the data. */
export async function resolveSecret(store: Store, configured?: string): Promise<string> {
  if (configured) return configured;
  const stored = await store.getMeta('cursor_secret');
  if (stored) return stored;
  // Instances starting together on a new database each generate one: the first write wins, and
  // every instance uses what was written, so a cursor of one continues on another.
  return store.setMetaOnce('cursor_secret', randomBytes(32).toString('base64url'));
}

/** The service's options that come from the configuration (the environment). */
export function serviceSettings(
  config: Config,
): Pick<
  ServiceOptions,
  | 'secret'
  | 'quotaPerMinute'
  | 'authFailuresPerMinute'
  | 'redisUrl'
  | 'reportTimeoutMs'
  | 'origins'
  | 'cacheReports'
  | 'cacheReads'
  | 'metrics'
  | 'slowReaders'
  | 'oauthIssuers'
  | 'oauthServer'
  | 'webSignIn'
  | 'tombstoneDays'
  | 'webhooks'
  | 'trustedProxies'
  | 'anonymousPerMinute'
  | 'registrationsPerHour'
  | 'authorizationsPerHour'
  | 'unusedClientHours'
  | 'unusedClientsMax'
  | 'preferredIssuer'
  | 'audit'
  | 'auditDays'
  | 'auditRefusalsPerMinute'
> {
  const { secret, quotaPerMinute, redisUrl, reportTimeoutMs, origins, cache, metrics } = config;
  return {
    secret,
    quotaPerMinute,
    authFailuresPerMinute: config.authFailuresPerMinute,
    redisUrl,
    reportTimeoutMs,
    origins,
    cacheReports: cache,
    cacheReads: cache,
    tombstoneDays: config.tombstoneDays,
    webhooks: {
      allowInsecure: config.webhookAllowInsecure,
      retryMs: config.webhookRetryMs,
      leaseMs: config.webhookLeaseMs,
    },
    metrics,
    slowReaders: {
      sendMs: config.sendTimeoutMs,
      unsentBytes: config.unsentMb * MB,
      clientUnsentBytes: config.clientUnsentMb * MB,
      clientPending: config.clientPending,
      clientPipelined: config.clientPipelined,
    },
    oauthIssuers: config.oauthIssuers,
    oauthServer: config.oauthServer,
    webSignIn: config.webSignIn,
    trustedProxies: config.trustedProxies,
    anonymousPerMinute: config.anonymousPerMinute,
    registrationsPerHour: config.registrationsPerHour,
    authorizationsPerHour: config.authorizationsPerHour,
    unusedClientHours: config.unusedClientHours,
    unusedClientsMax: config.unusedClientsMax,
    preferredIssuer: config.preferredIssuer,
    audit: config.audit,
    auditDays: config.auditDays,
    auditRefusalsPerMinute: config.auditRefusalsPerMinute,
  };
}

const SILENT: QuotaLog = { warn: () => {}, info: () => {} };

/**
 * In memory, or shared through Redis when REDIS_URL is set (and the quota is on); the Redis
 * client is loaded only then.
 */
async function quotaOf(options: ServiceOptions): Promise<Quota> {
  const perMinute = options.quotaPerMinute ?? DEFAULT_QUOTA_PER_MINUTE;
  if (!options.redisUrl || perMinute <= 0) return createQuota(perMinute);
  const { createRedisQuota } = await import('./auth/redis-quota.js');
  return createRedisQuota({ url: options.redisUrl, perMinute, log: options.quotaLog ?? SILENT });
}

/** The executor over a store: the one path to the data that HTTP and MCP share. */
export async function createExecutor(options: ServiceOptions): Promise<Executor> {
  const secret = options.secret ?? (await resolveSecret(options.store));
  const facts = options.facts ?? options.store;
  const reports = new ReportGate(
    facts.reportConcurrency,
    options.reportQueue ?? 8 * facts.reportConcurrency,
  );
  const { store } = options;
  return new Executor({
    store,
    facts,
    reportResults: new ResultCache(options.cacheReports ?? true, false, REPORT_CACHE_BOUNDS),
    readResults: new ResultCache(options.cacheReads ?? true, true),
    cursors: createCursorCodec(secret),
    quota: await quotaOf(options),
    authFailuresPerMinute: options.authFailuresPerMinute,
    now: options.now ?? (() => new Date()),
    catalogs: new CatalogCache(),
    reportTimeoutMs: options.reportTimeoutMs ?? DEFAULT_REPORT_TIMEOUT_MS,
    storeTimeoutMs: STORE_TIMEOUT_MS,
    reports,
    storeTurns: store.readConcurrency ? new StoreTurns(store.readConcurrency) : undefined,
    accessTokens: options.accessTokens,
    ownTokens: options.ownTokens,
    answers: options.answers,
    metrics: options.metrics
      ? new ServiceMetrics({
          operations: [...OPERATIONS.map((operation) => operation.name), ...FEED_OPERATION_NAMES],
          pools: () => store.connectionPools(),
          reportQueries: () => reports.state(),
        })
      : undefined,
  });
}

/**
 * Wires store, executor and HTTP app (API and MCP); the caller decides whether to listen. Closing
 * the app (SIGTERM, once requests have drained) closes the executor's Redis connection.
 */
export async function createService(
  options: ServiceOptions,
): Promise<{ app: FastifyInstance; executor: Executor }> {
  // The quota reports to the app's log, which exists only once the app does (no request before).
  const log: { to?: QuotaLog } = {};
  // OAuth tokens must name this server (DESIGN §4.12), whose origin is known once the app is.
  const known: { origin?: ServerOrigin } = {};
  const identity = await setUpIdentity(options, () => known.origin);
  const trail = options.audit
    ? new AuditTrail(options.store.auditTrail(), {
        log: {
          warn: (details, message) => log.to?.warn(details as Record<string, unknown>, message),
          info: (details, message) => log.to?.info(details as Record<string, unknown>, message),
        },
        ids: storeIdLookup(
          options.store,
          OPERATIONS.map((operation) => operation.name),
        ),
        refusalsPerMinute: options.auditRefusalsPerMinute,
        thread: options.store.auditWriterTarget(),
      })
    : undefined;
  const executor = await createExecutor({
    ...options,
    answers: trail,
    accessTokens: identity.accessTokens,
    ownTokens: identity.ownTokens,
    quotaLog: options.quotaLog ?? {
      warn: (details, message) => log.to?.warn(details, message),
      info: (details, message) => log.to?.info(details, message),
    },
  });
  executor.prepare(OPERATIONS);
  const app = await buildApp({
    executor,
    operations: OPERATIONS,
    store: options.store,
    logger: options.logger,
    origins: options.origins ?? { allowedOrigins: [] },
    slowReaders: options.slowReaders,
    authorizationServers: identity.authorizationServers,
    authorizationServer: identity.authorizationServer,
    webSignIn: options.webSignIn,
    trustedProxies: options.trustedProxies,
    anonymousPerMinute: options.anonymousPerMinute,
  });
  known.origin = serverOrigin(app, options.origins ?? { allowedOrigins: [] });
  log.to = app.log;
  app.addHook('onClose', () => executor.close());
  if (trail) {
    // After every request has drained: each one answered is written before the process ends.
    app.addHook('onClose', () => trail.close());
    if (options.auditDays !== undefined) sweepTrail(app, options.store, options.auditDays);
  }
  const { tombstoneDays } = options;
  if (tombstoneDays !== undefined) {
    const sweep = setInterval(() => {
      options.store.sweepTombstones(tombstoneDays).catch((error: unknown) => {
        app.log.warn({ err: error }, 'old tombstones of the change feed not removed');
      });
    }, TOMBSTONE_SWEEP_MS);
    sweep.unref();
    app.addHook('onClose', async () => clearInterval(sweep));
  }
  if (options.webhooks) {
    const delivery = new WebhookDelivery(
      {
        store: options.store,
        executor,
        log: app.log,
        meters: executor.deps.metrics?.webhooks,
        now: options.now && (() => options.now!().getTime()),
      },
      options.webhooks,
    );
    delivery.start();
    app.addHook('onClose', () => delivery.stop());
  }
  return { app, executor };
}

/**
 * Warm from the start (issue 23): one small report per view of each workspace through the
 * executor (src/operations/warm-up.ts), then one request through the app (`/healthz`, in process):
 * a Fastify app's first request pays about 9 ms of first-time work (the router, hooks, reply
 * path) that no later one does; and the MCP SDK and the OData filter grammar, loaded otherwise by
 * the first request that needs them. `serve` runs this before it listens.
 */
export async function warmService(
  { app, executor }: { app: FastifyInstance; executor: Executor },
  workspaces: readonly Workspace[],
  log: (message: string, failure?: unknown) => void,
): Promise<WarmUp> {
  const warm = await warmReports(executor, workspaces, log);
  await app.inject({ method: 'GET', url: '/healthz' }).catch(() => {});
  // The MCP SDK and the OData filter grammar, which a process loads otherwise by the first
  // request to /mcp (src/http/mcp-engine.ts) and the first $filter (src/odata/filter-expression.ts).
  await loadMcpEngine();
  await loadFilterGrammar();
  return warm;
}

/** How often the server removes events past VMS_READ_AUDIT_DAYS. */
export const AUDIT_SWEEP_MS = 3_600_000;

/** Retention (DESIGN §4.17): hourly, events older than `days` go, each chain's anchor moved. */
function sweepTrail(app: FastifyInstance, store: Store, days: number): void {
  const sweep = setInterval(() => {
    store
      .auditTrail()
      .pruneAuditEvents(Date.now() - days * 86_400_000)
      .catch((error: unknown) =>
        app.log.warn({ err: error }, 'old access trail events not removed'),
      );
  }, AUDIT_SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
}
