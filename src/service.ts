import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createQuota } from './auth/quota.js';
import { buildApp } from './http/app.js';
import { originConfigFromEnv, type OriginConfig } from './http/server-origin.js';
import { Executor } from './operations/executor.js';
import { OPERATIONS } from './operations/registry.js';
import { ReportGate } from './operations/report-gate.js';
import { createCursorCodec } from './paging/cursor.js';
import { CatalogCache } from './operations/catalog-cache.js';
import type { Store } from './store/store.js';

export interface ServiceOptions {
  store: Store;
  /** Cursor key; defaults to VMS_READ_SECRET, else one generated once and kept with the data. */
  secret?: string;
  /** Requests a minute per token; 0 turns the quota off. */
  quotaPerMinute?: number;
  logger?: boolean | Record<string, unknown>;
  now?: () => Date;
  /** Time limit of one report query; VMS_READ_REPORT_TIMEOUT_MS, default 10 s. */
  reportTimeoutMs?: number;
  /** The public URL and browser origins allowed on /mcp; default VMS_READ_PUBLIC_URL and VMS_READ_ALLOWED_ORIGINS. */
  origins?: OriginConfig;
  /** Report queries that may wait for a turn beyond those running; default 8 per running one. */
  reportQueue?: number;
}

/** DESIGN §4.1: a request the store does not answer within 2 s gets 503 `unavailable`. */
export const STORE_TIMEOUT_MS = 2000;

/** The cursor secret: the environment's, or one generated on first use and stored with the data. */
export async function resolveSecret(
  store: Store,
  fromEnv = process.env.VMS_READ_SECRET,
): Promise<string> {
  if (fromEnv) return fromEnv;
  const stored = await store.getMeta('cursor_secret');
  if (stored) return stored;
  const generated = randomBytes(32).toString('base64url');
  await store.setMeta('cursor_secret', generated);
  return generated;
}

export function quotaFromEnv(value = process.env.VMS_READ_QUOTA_PER_MINUTE): number {
  if (value === undefined || value === '') return 6000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error('VMS_READ_QUOTA_PER_MINUTE must be a whole number (0 turns the quota off)');
  return n;
}

export function reportTimeoutFromEnv(value = process.env.VMS_READ_REPORT_TIMEOUT_MS): number {
  if (value === undefined || value === '') return 10_000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error('VMS_READ_REPORT_TIMEOUT_MS must be a whole number of milliseconds');
  return n;
}

/** The executor over a store: the one path to the data that HTTP and MCP share. */
export async function createExecutor(options: ServiceOptions): Promise<Executor> {
  const secret = options.secret ?? (await resolveSecret(options.store));
  return new Executor({
    store: options.store,
    cursors: createCursorCodec(secret),
    quota: createQuota(options.quotaPerMinute ?? quotaFromEnv()),
    now: options.now ?? (() => new Date()),
    catalogs: new CatalogCache(),
    reportTimeoutMs: options.reportTimeoutMs ?? reportTimeoutFromEnv(),
    storeTimeoutMs: STORE_TIMEOUT_MS,
    reports: new ReportGate(
      options.store.reportConcurrency,
      options.reportQueue ?? 8 * options.store.reportConcurrency,
    ),
  });
}

/** Wires store, executor and HTTP app (API and MCP); the caller decides whether to listen. */
export async function createService(
  options: ServiceOptions,
): Promise<{ app: FastifyInstance; executor: Executor }> {
  const executor = await createExecutor(options);
  const app = await buildApp({
    executor,
    operations: OPERATIONS,
    store: options.store,
    logger: options.logger,
    origins: options.origins ?? originConfigFromEnv(),
  });
  return { app, executor };
}
