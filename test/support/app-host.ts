import { build } from 'esbuild';
import type { Frame, Page } from 'playwright-core';

/**
 * A small MCP Apps host for tests: a page with one sandboxed iframe (scripts only, an opaque
 * origin, as hosts run views) and the Apps SDK's own host side (`app-bridge`) talking to it over
 * postMessage. The view's tool calls go through the bridge to `callTool`, which the test answers
 * with a real MCP client against a real server.
 */
const HOST_SCRIPT = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.openView = async ({ html, tool, args, result, input, theme = 'light' }) => {
  const iframe = document.getElementById('view');
  const bridge = new AppBridge(
    null,
    { name: 'vms-read test host', version: '1.0.0' },
    { serverTools: {}, downloadFile: {} },
    { hostContext: { toolInfo: { tool }, theme, displayMode: 'inline' } },
  );
  window.bridge = bridge;
  window.calls = [];
  bridge.oncalltool = async (params) => {
    window.calls.push(params);
    return window.callTool(params);
  };
  window.downloads = [];
  bridge.ondownloadfile = async (params) => {
    window.downloads.push(params);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = height + 'px';
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await initialized;
  if (input === 'before') await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  if (input === 'after') await bridge.sendToolInput({ arguments: args });
};
`;

let hostPage: Promise<string> | undefined;

/** The host page's HTML, its script bundled once per run from the installed Apps SDK. */
export function appHostHtml(): Promise<string> {
  hostPage ??= build({
    stdin: { contents: HOST_SCRIPT, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'warning',
  }).then(
    (out) => `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head>
<body><iframe id="view" sandbox="allow-scripts" title="report view" style="width: 1000px; height: 800px; border: 0"></iframe>
<script type="module">${out.outputFiles[0].text.replace(/<\/script/gi, '<\\/script')}</script></body></html>`,
  );
  return hostPage;
}

export interface ViewCall {
  /** The view's HTML (resources/read). */
  html: string;
  /** The tool as tools/list gave it. */
  tool: unknown;
  args: Record<string, unknown>;
  /** The tool's result as the server answered it. */
  result: unknown;
  /** When the host sends the tool's arguments: before the result (as hosts do), after, or never. */
  input?: 'before' | 'after' | 'never';
  /** The host's theme in its context (`window.bridge.setHostContext` changes it later). */
  theme?: 'light' | 'dark';
}

/** Opens the view in the host page with a tool's result, and returns the view's frame once it drew. */
export async function openView(page: Page, call: ViewCall, drawn: string): Promise<Frame> {
  await page.evaluate(
    (c) => (window as unknown as { openView(c: unknown): Promise<void> }).openView(c),
    { input: 'before', ...call },
  );
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error('the view has no frame');
  await frame.waitForSelector(drawn);
  return frame;
}
