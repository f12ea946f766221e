import type { FastifyInstance, InjectOptions } from 'fastify';
import { createToken } from '../../src/auth/tokens.js';
import type { Scope } from '../../src/auth/scopes.js';
import type { OriginConfig } from '../../src/http/server-origin.js';
import type { OAuthIssuer } from '../../src/oauth-issuers.js';
import { createService } from '../../src/service.js';
import type { Executor } from '../../src/operations/executor.js';
import type { SqlStore } from '../../src/store/sql-store.js';
import {
  openTestDatabase,
  openTestFacts,
  type Dialect,
  type ReportEngineName,
  type TestDatabase,
  type TestFacts,
} from './test-databases.js';

export { AS_OF, DIALECTS, ENGINES, GOLDEN_SETUPS, type Dialect } from './test-databases.js';
export const ALL_SCOPES: Scope[] = ['read:program', 'read:financial', 'read:workforce', 'read:pii'];
export const WS = 'ws_business';
export const OTHER_WS = 'ws_team';

export interface HarnessOptions {
  dialect?: Dialect;
  quotaPerMinute?: number;
  /** Failed authentications a minute per address; off (0) unless a test asks, as the quota. */
  authFailuresPerMinute?: number;
  /** Requests without a credential a minute per address; off (0) unless a test asks. */
  anonymousPerMinute?: number;
  /** Registrations an hour per address (the built-in server); off (0) unless a test asks. */
  registrationsPerHour?: number;
  /** Authorization requests an hour per address (the built-in server); off (0) unless a test asks. */
  authorizationsPerHour?: number;
  /** VMS_READ_UNUSED_CLIENT_HOURS; the product's default unless a test asks. */
  unusedClientHours?: number;
  /** VMS_READ_UNUSED_CLIENTS_MAX; the product's default unless a test asks. */
  unusedClientsMax?: number;
  /** VMS_READ_TRUSTED_PROXIES. */
  trustedProxies?: string[];
  /** VMS_READ_PREFERRED_ISSUER. */
  preferredIssuer?: string;
  /** The access trail (VMS_READ_AUDIT); off unless a test asks, unlike the product. */
  audit?: boolean;
  /** VMS_READ_AUDIT_REFUSALS_PER_MINUTE (600 when left out). */
  auditRefusalsPerMinute?: number;
  /** Share the quota through this Redis (REDIS_URL). */
  redisUrl?: string;
  /** The app's pino options (default: no log). */
  logger?: Record<string, unknown>;
  reportTimeoutMs?: number;
  now?: () => Date;
  origins?: OriginConfig;
  reportQueue?: number;
  /** What reports read: the columnar copy (the product's default) or the row store. */
  engine?: ReportEngineName;
  /** Whether the columnar copy's rollups answer the reports they cover (VMS_READ_ROLLUPS); default on. */
  rollups?: boolean;
  /** Prometheus metrics at GET /metrics (VMS_READ_METRICS=1); off by default, as in the product. */
  metrics?: boolean;
  /** Identity providers whose JWT access tokens are accepted (VMS_READ_OAUTH_ISSUERS). */
  oauthIssuers?: OAuthIssuer[];
  /** The built-in authorization server (VMS_READ_OAUTH_SERVER=on, the product's default). */
  oauthServer?: boolean;
  /** The organisation's server the page signs in with (VMS_READ_WEB_ISSUER, _CLIENT_ID). */
  webSignIn?: { issuer: string; clientId: string };
  /** How the built-in server fetches client ID metadata documents (oidc-provider's: public https). */
  oauthFetch?: typeof fetch;
  /** Demo accounts the built-in server's sign-in page offers, by token name (`vms-read demo`). */
  demoAccounts?: { name: keyof Harness['tokens']; label: string }[];
}

export interface Harness extends Pick<TestDatabase, 'all' | 'one' | 'db' | 'dialect'> {
  store: SqlStore;
  facts: TestFacts;
  executor: Executor;
  app: FastifyInstance;
  tokens: {
    staff: string;
    staffNoPii: string;
    /** A second staff token of the same workspace (cursor binding). */
    staff2: string;
    worker: string;
    billing: string;
    otherWorkspaceStaff: string;
    programOnly: string;
    workforceOnly: string;
  };
  workerId: string;
  supplierId: string;
  supplierCode: string;
  close(): Promise<void>;
}

/** A staff token with every scope, minted into a store directly (for a server started by a test). */
export function staffToken(store: SqlStore, workspaceId = WS): Promise<string> {
  return createToken(store, { workspaceId, role: 'staff', scopes: ALL_SCOPES }, new Date());
}

/** A tiny seed (SQLite file or PostgreSQL database), a service over it, and tokens for every role. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database = await openTestDatabase(options.dialect ?? 'sqlite');
  const { store } = database;
  const facts = await openTestFacts(database, options.engine ?? 'columnar', {
    rollups: options.rollups,
    asSeeded: true,
  });
  const { app, executor } = await createService({
    store,
    facts,
    secret: 'test-secret',
    quotaPerMinute: options.quotaPerMinute ?? 0,
    authFailuresPerMinute: options.authFailuresPerMinute ?? 0,
    anonymousPerMinute: options.anonymousPerMinute ?? 0,
    registrationsPerHour: options.registrationsPerHour ?? 0,
    authorizationsPerHour: options.authorizationsPerHour ?? 0,
    unusedClientHours: options.unusedClientHours,
    unusedClientsMax: options.unusedClientsMax,
    trustedProxies: options.trustedProxies,
    preferredIssuer: options.preferredIssuer,
    audit: options.audit ?? false,
    auditRefusalsPerMinute: options.auditRefusalsPerMinute,
    redisUrl: options.redisUrl,
    logger: options.logger,
    reportTimeoutMs: options.reportTimeoutMs,
    now: options.now,
    origins: options.origins ?? { allowedOrigins: [] },
    reportQueue: options.reportQueue,
    metrics: options.metrics,
    oauthIssuers: options.oauthIssuers,
    oauthServer: options.oauthServer,
    webSignIn: options.webSignIn,
    oauthFetch: options.oauthFetch,
    // The tokens are minted below; the sign-in page reads them when it is shown.
    demoAccounts: options.demoAccounts?.map(({ name, label }) => ({
      name,
      label,
      get token() {
        return demoTokens[name];
      },
    })),
  });
  await app.ready();
  const { one } = database;
  const workerId = (
    await one<{ worker_id: string }>(
      `SELECT worker_id FROM timesheets WHERE workspace_id = ? GROUP BY worker_id ORDER BY COUNT(*) DESC, worker_id LIMIT 1`,
      WS,
    )
  ).worker_id;
  const supplierCode = (
    await one<{ supplier_ref: string }>(
      `SELECT l.supplier_ref FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
     WHERE i.workspace_id = ? AND i.grouping_rule = 'consolidated' AND l.supplier_ref IS NOT NULL ORDER BY l.supplier_ref LIMIT 1`,
      WS,
    )
  ).supplier_ref;
  const supplierId = (
    await one<{ id: string }>(
      `SELECT id FROM suppliers WHERE workspace_id = ? AND code = ?`,
      WS,
      supplierCode,
    )
  ).id;
  const now = new Date();
  const demoTokens = {} as Harness['tokens'];
  const mint = (request: Parameters<typeof createToken>[1]) => createToken(store, request, now);
  const tokens = {
    // Every scope, the access trail's too (read:audit), so a walk of the registry reaches it all.
    staff: await mint({ workspaceId: WS, role: 'staff', scopes: [...ALL_SCOPES, 'read:audit'] }),
    staffNoPii: await mint({
      workspaceId: WS,
      role: 'staff',
      scopes: ALL_SCOPES.filter((s) => s !== 'read:pii'),
    }),
    staff2: await mint({ workspaceId: WS, role: 'staff', scopes: ALL_SCOPES }),
    // With read:audit too: the access trail refuses them for their role (403 forbidden).
    worker: await mint({
      workspaceId: WS,
      role: 'worker',
      workerId,
      scopes: [...ALL_SCOPES, 'read:audit'],
    }),
    billing: await mint({
      workspaceId: WS,
      role: 'billing_entity',
      supplierId,
      scopes: [...ALL_SCOPES, 'read:audit'],
    }),
    otherWorkspaceStaff: await mint({ workspaceId: OTHER_WS, role: 'staff', scopes: ALL_SCOPES }),
    programOnly: await mint({ workspaceId: WS, role: 'staff', scopes: ['read:program'] }),
    workforceOnly: await mint({ workspaceId: WS, role: 'staff', scopes: ['read:workforce'] }),
  };
  Object.assign(demoTokens, tokens);
  return {
    store,
    dialect: database.dialect,
    db: database.db,
    all: database.all,
    one: database.one,
    app,
    tokens,
    workerId,
    supplierId,
    supplierCode,
    facts,
    executor,
    close: async () => {
      await app.close();
      await facts.close();
      await database.drop();
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  raw: string;
}

/** Any request, answered as status, headers, parsed body (or the text when not JSON) and raw text. */
export async function send(app: FastifyInstance, request: InjectOptions): Promise<Answer> {
  const response = await app.inject(request);
  return {
    status: response.statusCode,
    headers: response.headers,
    body: safeJson(response.body),
    raw: response.body,
  };
}

/** GET a path (query included) with a bearer token (or none). */
export function get(
  app: FastifyInstance,
  url: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return send(app, {
    method: 'GET',
    url,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
}

export function post(
  app: FastifyInstance,
  url: string,
  token: string | undefined,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return send(app, {
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Query string from an object, values kept as given (arrays repeat the key). */
export function qs(params: Record<string, string | number | string[] | undefined>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value])
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Calls an operation the way its method wants: GET with a query string, POST with a JSON body. */
export function callOperation(
  app: FastifyInstance,
  operation: { method: 'GET' | 'POST'; path: string },
  token: string | undefined,
  input: Record<string, unknown> = {},
): Promise<Answer> {
  if (operation.method === 'POST') return post(app, operation.path, token, input);
  return get(
    app,
    `${operation.path}${qs(input as Record<string, string | number | string[] | undefined>)}`,
    token,
  );
}

/** Inputs that every operation accepts: what a scope or role test sends. */
export function validInput(operation: {
  name: string;
  input: { properties: Record<string, unknown> };
}): Record<string, unknown> {
  if (operation.name === 'run_semantic_query') return { query: { metrics: ['invoice_count'] } };
  if (operation.name === 'run_saved_query') return { savedQueryId: 'sq_none' };
  return 'id' in operation.input.properties ? { id: 'abc' } : {};
}
