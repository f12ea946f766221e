import { ROUTES } from 'vms-read-client';
import { h } from '../dom.js';

/**
 * "Copy as": the query the explorer ran, as a curl command, an MCP `tools/call` request and
 * typed-client code, each holding the very body that ran (one JSON.stringify of one object). The
 * signed-in token is never written into them: each reads it from `VMS_TOKEN`, so a copied text
 * can be pasted into a ticket or a chat without leaking a credential.
 */
const TOOL = 'run_semantic_query';

/** A word for a POSIX shell: in single quotes, each `'` closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlText(origin: string, body: unknown): string {
  return [
    '# The token is not copied: set VMS_TOKEN to yours first.',
    `curl -sS -X POST ${shellQuote(`${origin}${ROUTES[TOOL].path}`)} \\`,
    '  -H "Authorization: Bearer $VMS_TOKEN" \\',
    "  -H 'Content-Type: application/json' \\",
    `  --data-raw ${shellQuote(JSON.stringify(body))}`,
  ].join('\n');
}

/** The JSON-RPC request alone (what an MCP client sends to `<origin>/mcp` after initialize). */
export function mcpText(body: unknown): string {
  return JSON.stringify(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL, arguments: body } },
    null,
    2,
  );
}

export function clientText(origin: string, body: unknown): string {
  return [
    "import { createVmsReadClient } from 'vms-read-client';",
    '',
    '// The token is not copied: set VMS_TOKEN to yours.',
    `const vms = createVmsReadClient({ baseUrl: ${JSON.stringify(origin)}, token: process.env.VMS_TOKEN });`,
    `const answer = await vms.call('${TOOL}', ${JSON.stringify(body, null, 2)});`,
    '// A refusal is data (answer.status === "refused"); vms.rows(...) follows nextCursor.',
    'console.log(answer);',
  ].join('\n');
}

/**
 * Copies a text: the Clipboard API where the page may use it (a secure context: https or
 * localhost), else the text is selected so Ctrl+C / ⌘C copies it, and the status says which.
 */
async function copy(area: HTMLTextAreaElement, status: HTMLElement): Promise<void> {
  try {
    if (!navigator.clipboard) throw new Error('no clipboard');
    await navigator.clipboard.writeText(area.value);
    status.textContent = 'Copied.';
  } catch {
    area.focus();
    area.select();
    status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
  }
}

/** Enough rows to show a short text whole (long lines wrap at about 90 characters). */
const rowsFor = (text: string) =>
  Math.min(
    18,
    1 + text.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / 90)), 0),
  );

function block(id: string, title: string, hint: string, text: string): HTMLElement {
  const area = h('textarea', {
    id,
    class: 'copy-text',
    readonly: true,
    spellcheck: 'false',
    rows: rowsFor(text),
    'aria-describedby': `${id}-hint`,
  }) as HTMLTextAreaElement;
  area.value = text;
  const status = h('span', { class: 'copy-status', role: 'status' });
  const button = h('button', { type: 'button', class: 'secondary', 'data-copy': id }, 'Copy');
  button.addEventListener('click', () => void copy(area, status));
  return h(
    'div',
    { class: 'copy-block' },
    h('label', { for: id }, title),
    h('p', { id: `${id}-hint`, class: 'hint' }, hint),
    area,
    h('div', { class: 'copy-actions' }, button, status),
  );
}

/** The three texts of one body, each read-only with its Copy button. */
export function copyAsView(origin: string, body: unknown): HTMLElement {
  return h(
    'section',
    { class: 'copy-as', 'aria-labelledby': 'copy-as-heading' },
    h('h2', { id: 'copy-as-heading' }, 'Copy as'),
    h(
      'p',
      { class: 'hint' },
      'The same query as it just ran. None of these contains your token: each reads VMS_TOKEN.',
    ),
    block('copy-curl', 'curl', 'A shell command against this server.', curlText(origin, body)),
    block(
      'copy-mcp',
      'MCP tools/call',
      `A JSON-RPC request for the MCP endpoint ${origin}/mcp, with the token as its bearer header.`,
      mcpText(body),
    ),
    block(
      'copy-client',
      'Typed client (vms-read-client)',
      'TypeScript or JavaScript (an ES module, Node 22 or later).',
      clientText(origin, body),
    ),
  );
}
