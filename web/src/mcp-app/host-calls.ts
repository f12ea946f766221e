import type { App } from '@modelcontextprotocol/ext-apps';
import type { ExplorerCatalog } from '../explorer-query.js';
import { namesFrom, supplierNamesOf, type Names } from '../names.js';

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

/** A tool result as the view reads it: structuredContent, or an error with the service's words. */
export function structuredOf(result: {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
}): unknown {
  if (result.isError) throw new ToolCallError(errorText(result.content));
  return result.structuredContent;
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

/** Keys and codes alone: what a view shows without the host's answers. */
export const NO_NAMES: ViewNames = { names: namesFrom(null, new Map(), new Set()), timeKeys: null };

/** How long the first drawing waits for names before it draws with keys and codes. */
export const NAMES_WAIT_MS = 3000;

/**
 * The names the page shows, read through the host as the page reads them from the API: labels
 * from list_catalog, suppliers' names from list_suppliers. A host that refuses these calls gets
 * the keys and codes alone; one that does not answer within NAMES_WAIT_MS, the same.
 */
export function namesThroughHost(call: ToolCall): Promise<ViewNames> {
  const late = new Promise<ViewNames>((resolve) => setTimeout(resolve, NAMES_WAIT_MS, NO_NAMES));
  return Promise.race([readNames(call), late]);
}

async function readNames(call: ToolCall): Promise<ViewNames> {
  const catalog = (await call('list_catalog', {}).catch(() => null)) as ExplorerCatalog | null;
  const timeKeys = catalog
    ? new Set(catalog.dimensions.filter((d) => d.type === 'time').map((d) => d.key))
    : null;
  const suppliers = await supplierNamesOf(itemsOf(call, 'list_suppliers'));
  return { names: namesFrom(catalog, suppliers, timeKeys ?? new Set()), timeKeys };
}
