import type { ReportAnswer, ReportRefusal } from '../types.js';
import { App, applyDocumentTheme } from '@modelcontextprotocol/ext-apps';
import { saveFilesWith } from '../csv.js';
import { h, replace, thirdParty, type Provenance } from '../dom.js';
import { resultView } from '../report/result-view.js';
import { changesView, isChangePage, type ChangePage } from './changes-view.js';
import { namesThroughHost, structuredOf, toolCaller, type ToolCall } from './host-calls.js';
import { guessedTimeKeys } from './time-keys.js';

/**
 * The report view of MCP Apps: the host hands it a tool's result (run_semantic_query,
 * run_saved_query, list_changes) and it draws it as the web page does, with the page's own code
 * (result-view.ts: a chart by unit, the table beside it, currencies apart, refusals by code). A
 * "Load more" is a tool call through the host. Third-party text is only ever text (dom.ts).
 */
const root = document.getElementById('view') as HTMLElement;
const app = new App({ name: 'vms-read report view', version: '0.1.0' }, {}, { autoResize: true });
const call: ToolCall = toolCaller(app);
/** The arguments the tool was called with (list_changes' `type`, run_saved_query's id). */
let input: Record<string, unknown> | null = null;
let names: ReturnType<typeof namesThroughHost> | null = null;

type ReportData = ReportAnswer & { savedQuery?: { id: string; name: Provenance } };

/** Which tool's result this is: the host says, else its shape does. */
function toolOf(data: unknown): string {
  const named = app.getHostContext()?.toolInfo?.tool.name;
  if (named) return named;
  if (isChangePage(data)) return 'list_changes';
  return (data as ReportData).savedQuery ? 'run_saved_query' : 'run_semantic_query';
}

/**
 * The arguments of the next page, beside its cursor: a report query as it ran (its semanticQuery,
 * which the cursor is bound to, so a relative period that has since moved on still continues), a
 * saved query by its id, the change feed with the arguments it was called with (its `type`).
 */
function nextArguments(tool: string, data: unknown): Record<string, unknown> {
  if (tool === 'run_saved_query') return { savedQueryId: (data as ReportData).savedQuery?.id };
  if (tool === 'run_semantic_query')
    return { query: (data as { semanticQuery?: unknown }).semanticQuery };
  const { limit, type } = input ?? {};
  return { ...(limit === undefined ? {} : { limit }), ...(type === undefined ? {} : { type }) };
}

/** The same call again for its next page, when the host passes the view's calls on. */
function nextPage(tool: string, data: unknown) {
  if (!app.getHostCapabilities()?.serverTools) return undefined;
  return (cursor: string) => call(tool, { ...nextArguments(tool, data), cursor });
}

/** The result drawn last: drawn again when the host's theme changes (the charts' colours). */
let drawn: unknown = undefined;

async function draw(data: unknown): Promise<void> {
  drawn = data;
  const tool = toolOf(data);
  const more = nextPage(tool, data);
  if (isChangePage(data)) {
    replace(
      root,
      changesView(
        data,
        more as ((cursor: string) => Promise<ChangePage | ReportRefusal>) | undefined,
      ),
    );
    return;
  }
  const answer = data as ReportData;
  names ??= namesThroughHost(call);
  const read = await names;
  // Labels that did not come in time are asked for again at the next result.
  if (!read.catalogRead) names = null;
  const title = answer.savedQuery ? answer.savedQuery.name.value : 'Report';
  replace(
    root,
    answer.savedQuery ? h('h2', { class: 'view-title' }, thirdParty(answer.savedQuery.name)) : null,
    resultView(answer, {
      timeKeys: read.timeKeys ?? guessedTimeKeys(answer),
      names: read.names,
      title,
      more: more as ((cursor: string) => Promise<ReportAnswer>) | undefined,
    }),
  );
}

function say(text: string, role: 'alert' | 'status' = 'alert') {
  replace(root, h('p', { class: role === 'alert' ? 'error' : 'meta', role }, text));
}

app.ontoolinput = ({ arguments: args }) => {
  input = args ?? {};
};
app.ontoolresult = (result) => {
  try {
    void draw(structuredOf(result)).catch((error: unknown) => say((error as Error).message));
  } catch (error) {
    say((error as Error).message);
  }
};
app.ontoolcancelled = () => say('The call was cancelled: there is no result to draw.', 'status');
app.onhostcontextchanged = ({ theme }) => {
  if (!theme || document.documentElement.getAttribute('data-theme') === theme) return;
  applyDocumentTheme(theme);
  if (drawn !== undefined)
    void draw(drawn).catch((error: unknown) => say((error as Error).message));
};
// The sandbox blocks a page's own downloads: "Download CSV" asks the host, where it can save.
saveFilesWith(null);
app.connect().then(
  () => {
    const theme = app.getHostContext()?.theme;
    if (theme) applyDocumentTheme(theme);
    if (app.getHostCapabilities()?.downloadFile)
      saveFilesWith((name, text) => {
        void app.downloadFile({
          contents: [
            {
              type: 'resource',
              resource: { uri: `file:///${encodeURIComponent(name)}`, mimeType: 'text/csv', text },
            },
          ],
        });
      });
    root.setAttribute('data-connected', '');
  },
  (error: unknown) => say((error as Error).message),
);
