import type { Config } from '../config.js';
import { isPlainId, PLAIN_ID_SHAPE } from '../records/plain-values.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';

import { UsageError } from './args-error.js';

export { UsageError };

/** `--db`, the same for every command that reads or writes a database. */
export const DB_FLAG = {
  type: 'string',
  value: 'D',
  help: 'a SQLite file path or a postgres:// URL (default: VMS_READ_DB)',
} as const;

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/**
 * A flag whose value lands in a field the API sends plain (a workspace, worker, supplier or
 * dashboard id, a metric key): id-shaped, like the importer's id columns. Undefined passes.
 */
export function plainIdOf(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && !isPlainId(value))
    throw new UsageError(`${flag} must be ${PLAIN_ID_SHAPE}`);
  return value;
}

export function requiredId(value: string | undefined, flag: string): string {
  return plainIdOf(required(value, flag), flag) as string;
}

/** `--token`, for the commands that act with or on one token (`mcp`, `token revoke`). */
export const TOKEN_FLAG = {
  type: 'string',
  value: 'T',
  help: 'the bearer token (default: VMS_READ_TOKEN)',
} as const;

/** `--token`, defaulting to VMS_READ_TOKEN. */
export function tokenOf(value: string | undefined, config: Config): string {
  return required(value ?? config.token, '--token (or VMS_READ_TOKEN)');
}

/** `--db`, defaulting to VMS_READ_DB. */
export function dbOf(value: string | undefined, config: Config): string {
  return required(value ?? config.db, '--db (or VMS_READ_DB)');
}

/** The store `--db` (or VMS_READ_DB) names, opened with the configured pool size. */
export function openDb(
  value: string | undefined,
  config: Config,
  options: { create?: boolean } = {},
): Promise<Store> {
  return openStore(dbOf(value, config), { ...options, poolSize: config.pgPoolSize });
}

export function integerOf(
  value: string | undefined,
  flag: string,
  fallback: number,
  min = 0,
  max = 2 ** 31 - 1,
): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}
