import type { OrderItem } from './filter-expression.js';
import type { RawOptions } from './query-options.js';
import type { SetQuery } from './set-query.js';

/**
 * What a feed request says besides its path and options: the OData version it takes, the page
 * size it prefers; and what it repeats in a nextLink and keeps in the access trail.
 */

/** 4.01 when the client takes it (`OData-MaxVersion: 4.01`), else 4.0 (DESIGN §4.18). */
export function versionOf(maxVersion: string | string[] | undefined): '4.0' | '4.01' {
  const text = Array.isArray(maxVersion) ? maxVersion[0] : maxVersion;
  const match = /^\s*(\d+)\.(\d+)\s*$/.exec(text ?? '');
  if (!match) return '4.0';
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 4 || (major === 4 && minor >= 1) ? '4.01' : '4.0';
}

export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 10_000;

/** `Prefer: odata.maxpagesize=N`, honoured up to 10,000; 1,000 otherwise. */
export function pageSizeOf(prefer: string | string[] | undefined): number {
  const text = Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '');
  const match = /(?:^|[,;\s])odata\.maxpagesize\s*=\s*"?(\d{1,9})"?/i.exec(text);
  if (!match) return DEFAULT_PAGE_SIZE;
  const size = Number(match[1]);
  return size < 1 ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE);
}

/** Whether the client asked for change tracking (`Prefer: odata.track-changes`). */
export function tracksChanges(prefer: string | string[] | undefined): boolean {
  const text = Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '');
  return /(?:^|[,;\s])odata\.track-changes(?:$|[,;\s])/i.test(text);
}

/** The options a nextLink repeats, as sent (re-encoded): never `api_key`, `$top`, `$skip`. */
export function linkOptionsOf(options: RawOptions['options']): string {
  const kept = ['$filter', '$select', '$orderby', '$expand', '$count', '$format'] as const;
  return kept
    .filter((name) => options[name] !== undefined)
    .map((name) => `${name}=${encodeURIComponent(options[name] as string)}`)
    .join('&');
}

/** The options a deltaLink repeats: what shapes its records, never what chose them. */
export function deltaOptionsOf(options: RawOptions['options']): string {
  return (['$select', '$format'] as const)
    .filter((name) => options[name] !== undefined)
    .map((name) => `${name}=${encodeURIComponent(options[name] as string)}`)
    .join('&');
}

/** The request's options as accepted: what the access trail keeps of it (feed-operations.ts). */
export function feedInput(
  options: RawOptions['options'],
  query: SetQuery,
  where: { key?: string; navigation?: string },
): Record<string, unknown> {
  const input: Record<string, unknown> = { ...where };
  if (query.select !== null) input.$select = query.select;
  if (options.$filter !== undefined) input.$filter = options.$filter;
  if (query.orderItems.length > 0)
    input.$orderby = query.orderItems.map((o: OrderItem) => ({
      property: o.property,
      direction: o.direction,
    }));
  if (query.top !== null) input.$top = query.top;
  if (query.skip > 0) input.$skip = query.skip;
  if (options.$count !== undefined) input.$count = query.count;
  if (query.expand.length > 0) input.$expand = query.expand.map((e) => e.navigation.name);
  if (options.$skiptoken !== undefined) input.cursor = options.$skiptoken;
  return input;
}
