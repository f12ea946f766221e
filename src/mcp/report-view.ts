import { readFileSync } from 'node:fs';
import {
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
  type McpUiAppResourceConfig,
  type McpUiReadResourceResult,
} from '@modelcontextprotocol/ext-apps/server';
import type { ListResourcesResult, Tool } from '@modelcontextprotocol/server';
import { JSON_RPC, ProtocolError } from './protocol-errors.js';

/**
 * The report view (MCP Apps): one HTML resource, built from the web page's own code
 * (web/src/mcp-app/, bundled into one self-contained file by `npm run build`), that hosts which
 * support MCP Apps draw in place of the JSON of a report (`run_semantic_query`, `run_saved_query`)
 * or of the change feed (`list_changes`, as a table). Hosts without MCP Apps ignore the tool's
 * `_meta.ui` and see the result as before.
 */
export const REPORT_VIEW_URI = 'ui://vms-read/report-view.html';

/** The tools whose results the view draws. */
export const VIEW_TOOLS: ReadonlySet<string> = new Set([
  'run_semantic_query',
  'run_saved_query',
  'list_changes',
]);

/** dist/web/mcp-app, beside dist/src where this module is compiled. */
const VIEW_FILE = new URL('../../web/mcp-app/report-view.html', import.meta.url);

let html: string | null | undefined;

/** The view's HTML, read once; null when the web code was not built (tsc alone). */
export function reportViewHtml(): string | null {
  if (html === undefined) {
    try {
      html = readFileSync(VIEW_FILE, 'utf8');
    } catch {
      html = null;
    }
  }
  return html;
}

/**
 * What the host is asked for: no network, no outside resources, no frames (every list empty:
 * MCP Apps' secure default, said out loud), a border. The HTML carries the same policy in its
 * own meta tag, with hashes of its one script and style, so a host that ignores this is no looser.
 */
const RESOURCE_UI: NonNullable<McpUiAppResourceConfig['_meta']>['ui'] = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

const RESOURCE = {
  uri: REPORT_VIEW_URI,
  name: 'report-view',
  title: 'vms-read report view',
  description:
    'Draws a report (run_semantic_query, run_saved_query) as the web page does, a chart by unit beside its table, or the change feed (list_changes) as a table.',
  mimeType: RESOURCE_MIME_TYPE,
  _meta: { ui: RESOURCE_UI },
};

/** A tool with the view declared when it is one the view draws (and the view is built). */
export function withView(tool: Tool): Tool {
  if (!VIEW_TOOLS.has(tool.name) || reportViewHtml() === null) return tool;
  // Both spellings, as the Apps SDK's registerAppTool writes them: `ui.resourceUri`, and the
  // flat key older hosts read.
  return {
    ...tool,
    _meta: {
      ...tool._meta,
      ui: { resourceUri: REPORT_VIEW_URI },
      [RESOURCE_URI_META_KEY]: REPORT_VIEW_URI,
    },
  };
}

export function listViewResources(): ListResourcesResult {
  return { resources: reportViewHtml() === null ? [] : [RESOURCE] };
}

/**
 * resources/read: the view's HTML; the fixed -32602 of JSON_RPC.invalidParams without a string
 * `uri`, of JSON_RPC.notFound for any other URI.
 */
export function readViewResource(params: unknown): McpUiReadResourceResult {
  const uri = (params as { uri?: unknown } | null)?.uri;
  if (typeof params !== 'object' || params === null || typeof uri !== 'string')
    throw new ProtocolError(JSON_RPC.invalidParams);
  const text = reportViewHtml();
  if (uri !== REPORT_VIEW_URI || text === null) throw new ProtocolError(JSON_RPC.notFound);
  return {
    contents: [
      { uri: REPORT_VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text, _meta: { ui: RESOURCE_UI } },
    ],
  };
}
