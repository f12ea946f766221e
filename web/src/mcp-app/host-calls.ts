import type { ExplorerCatalog } from '../types.js';
import type { App } from '@modelcontextprotocol/ext-apps';

import type { Provenance } from '../dom.js';
import { namesFrom, supplierNamesOf, type Names } from '../session/names.js';

/**
 * The view's one way to the server: a tool call through the host (MCP Apps' `tools/call` from
 * the view; the host decides whether to pass it on). The view opens no connection of its own.
 */
export type ToolCall = (name: string, args: Record<string, unknown>) => Promise<unknown>;

/** A tool result the host returned with isError: the service's error, by its code and message. */
export class ToolCallError extends Error {}

function errorText(content: unknown): string {
  const first = Array.isArray(content) ? (content[0] as { text?: unknown } | undefined) : undefined;
  try {
    const body = JSON.parse(String(first?.text)) as { error?: { code?: string; message?: string } };
    if (body.error) return `${body.error.code ?? 'error'}: ${body.error.message ?? ''}`;
  } catch {
    // Not the service's error body: said plainly below.
  }
  return 'the tool call failed';
}

/**
 * A tool result as the view reads it: structuredContent (or, from a host that passed on the text
 * alone, the `data` of the `{data, request_id}` text), or an error with the service's words.
 */
export function structuredOf(result: {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
}): unknown {
  if (result.isError) throw new ToolCallError(errorText(result.content));
  if (result.structuredContent !== undefined) return result.structuredContent;
  const first = Array.isArray(result.content)
    ? (result.content[0] as { text?: unknown } | undefined)
    : undefined;
  try {
    return (JSON.parse(String(first?.text)) as { data: unknown }).data;
  } catch {
    throw new ToolCallError('the result holds neither structured content nor the service’s text');
  }
}

export function toolCaller(app: App): ToolCall {
  return async (name, args) => structuredOf(await app.callServerTool({ name, arguments: args }));
}

/** Each item of a list operation, page after page through its nextCursor (at most `pages`). */
async function* itemsOf(call: ToolCall, name: string, pages = 20): AsyncIterable<unknown> {
  let cursor: string | undefined;
  for (let page = 0; page < pages; page++) {
    const answer = (await call(name, cursor ? { limit: 50, cursor } : { limit: 50 })) as {
      items: unknown[];
      hasMore: boolean;
      nextCursor: string | null;
    };
    yield* answer.items;
    if (!answer.hasMore || !answer.nextCursor) return;
    cursor = answer.nextCursor;
  }
}

export interface ViewNames {
  names: Names;
  /** The catalog's time dimensions; null when the catalog could not be read. */
  timeKeys: ReadonlySet<string> | null;
}

/** How long the first drawing waits for each kind of name before it draws without them. */
export const NAMES_WAIT_MS = 3000;

/** A promise's value, or `fallback` when it has not come within NAMES_WAIT_MS (or failed). */
function within<T>(promise: Promise<T>, fallback: T): Promise<T> {
  const late = new Promise<T>((resolve) => setTimeout(resolve, NAMES_WAIT_MS, fallback));
  return Promise.race([promise.catch(() => fallback), late]);
}

/** At most this many pages of suppliers (50 each) are read for their names. */
const SUPPLIER_PAGES = 5;

/**
 * The names the page shows, read through the host as the page reads them from the API: labels
 * from list_catalog, suppliers' names from list_suppliers. Each waits at most NAMES_WAIT_MS: a
 * host that declines or does not answer gets keys and codes; suppliers' names that come later
 * are shown at the next drawing (a Load more). `catalogRead` says whether labels came, so a
 * caller can ask again.
 */
export async function namesThroughHost(
  call: ToolCall,
): Promise<ViewNames & { catalogRead: boolean }> {
  const suppliers = new Map<string, Provenance>();
  const paging = supplierNamesOf(itemsOf(call, 'list_suppliers', SUPPLIER_PAGES), suppliers);
  const [catalog] = await Promise.all([
    within(call('list_catalog', {}) as Promise<ExplorerCatalog | null>, null),
    within(paging, suppliers),
  ]);
  const timeKeys = catalog
    ? new Set(catalog.dimensions.filter((d) => d.type === 'time').map((d) => d.key))
    : null;
  return {
    names: namesFrom(catalog, suppliers, timeKeys ?? new Set()),
    timeKeys,
    catalogRead: catalog !== null,
  };
}
