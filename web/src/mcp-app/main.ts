import { App, applyDocumentTheme } from '@modelcontextprotocol/ext-apps';
import { h, replace, thirdParty, type Provenance } from '../dom.js';
import { resultView, type ReportAnswer } from '../result-view.js';
import { changesView, isChangePage, type ChangePage } from './changes-view.js';
import {
  namesThroughHost,
  structuredOf,
  toolCaller,
  type ToolCall,
  type ViewNames,
} from './host-calls.js';
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
/** The arguments the tool was called with: a "Load more" sends them again with the cursor. */
let input: Record<string, unknown> = {};
let names: Promise<ViewNames> | null = null;

type ReportData = ReportAnswer & { savedQuery?: { id: string; name: Provenance } };

/** Which tool's result this is: the host says, else its shape does. */
function toolOf(data: unknown): string {
  const named = app.getHostContext()?.toolInfo?.tool.name;
  if (named) return named;
  if (isChangePage(data)) return 'list_changes';
  return (data as ReportData).savedQuery ? 'run_saved_query' : 'run_semantic_query';
}

/** The same call again for its next page: the arguments it was called with, and the cursor. */
function nextPage(tool: string, data: unknown) {
  return async (cursor: string) => {
    const saved = (data as ReportData).savedQuery;
    const args = Object.keys(input).length
      ? input
      : saved
        ? { savedQueryId: saved.id }
        : { query: (data as { semanticQuery?: unknown }).semanticQuery };
    return call(tool, { ...args, cursor });
  };
}

async function draw(data: unknown): Promise<void> {
  const tool = toolOf(data);
  const more = nextPage(tool, data);
  if (isChangePage(data)) {
    replace(
      root,
      changesView(data, (cursor) => more(cursor) as Promise<ChangePage>),
    );
    return;
  }
  const answer = data as ReportData;
  names ??= namesThroughHost(call);
  const { names: known, timeKeys } = await names;
  const title = answer.savedQuery ? answer.savedQuery.name.value : 'Report';
  replace(
    root,
    answer.savedQuery ? h('h2', { class: 'view-title' }, thirdParty(answer.savedQuery.name)) : null,
    resultView(answer, {
      timeKeys: timeKeys ?? guessedTimeKeys(answer),
      names: known,
      title,
      more: (cursor) => more(cursor) as Promise<ReportAnswer>,
    }),
  );
}

function show(result: { isError?: boolean; content?: unknown; structuredContent?: unknown }) {
  try {
    void draw(structuredOf(result)).catch(fail);
  } catch (error) {
    fail(error);
  }
}

function fail(error: unknown) {
  replace(root, h('p', { class: 'error', role: 'alert' }, (error as Error).message));
}

app.ontoolinput = ({ arguments: args }) => {
  input = args ?? {};
};
app.ontoolresult = show;
app.onhostcontextchanged = ({ theme }) => {
  if (theme) applyDocumentTheme(theme);
};
app.connect().then(
  () => {
    const theme = app.getHostContext()?.theme;
    if (theme) applyDocumentTheme(theme);
    root.setAttribute('data-connected', '');
  },
  (error: unknown) => fail(error),
);
