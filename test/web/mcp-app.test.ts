import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { Frame, Page } from 'playwright-core';
import { createSavedQuery } from '../../src/admin/saved-queries.js';
import { REPORT_VIEW_URI } from '../../src/mcp/report-view.js';
import { assertAccessible } from '../support/accessibility.js';
import { appHostHtml, openView, type ViewCall } from '../support/app-host.js';
import {
  launchBrowser,
  servePage,
  skipWithoutChromium,
  type TestBrowser,
} from '../support/browser.js';
import { AS_OF, startHarness, WS, type Harness } from '../support/harness.js';
import { assertMoneyTrue, drawnIn, text, type Answer } from './drawn.js';

/**
 * The report view of MCP Apps in headless Chromium, inside a test host built on the Apps SDK's
 * host side (app-bridge): for every shape the web page draws, the view draws the numbers of the
 * tool's structuredContent; hostile text stays text; "Load more" goes through the bridge to the
 * server and back.
 */
const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;
const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');
/** A value as the table shows it: a month's first day by the month's name, others as they are. */
const labelOf = (value: string) => {
  const month = /^(\d{4})-(\d{2})-01$/.exec(value);
  return month ? `${MONTHS[Number(month[2]) - 1]} ${month[1]}` : value;
};

type Host = 'answers' | 'declines' | 'silent';
type Data = Record<string, unknown>;

/** The view's tool calls the host passed on to the server, by tool name. */
async function callsOf(page: Page, name: string) {
  const calls = await page.evaluate(
    () => (window as unknown as { calls: { name: string; arguments: Data }[] }).calls,
  );
  return calls.filter((c) => c.name === name).map((c) => ({ name, arguments: c.arguments }));
}

describe('the MCP Apps report view in a test host', { skip: skipWithoutChromium() }, () => {
  let h: Harness;
  let client: Client;
  let browser: TestBrowser;
  let host: { origin: string; close(): Promise<void> };
  let tools: Map<string, Tool>;
  let html: string;
  let savedId: string;
  let budgetId: string;

  before(async () => {
    h = await startHarness({ now: () => new Date(`${AS_OF}T12:00:00.000Z`) });
    savedId = await createSavedQuery(
      h.store,
      {
        workspaceId: WS,
        kind: 'library',
        name: HOSTILE,
        definition: { query: { metrics: ['spend'], dimensions: ['supplier', 'currency'] } },
        dashboardId: null,
        author: 'test',
      },
      new Date(),
    );
    budgetId = await createSavedQuery(
      h.store,
      {
        workspaceId: WS,
        kind: 'library',
        name: 'Hours by day',
        definition: {
          query: { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 700 },
        },
        dashboardId: null,
        author: 'test',
      },
      new Date(),
    );
    const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    client = new Client({ name: 'vms-read test host', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${h.tokens.staff}` } },
      }),
    );
    tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    const read = await client.readResource({ uri: REPORT_VIEW_URI });
    html = (read.contents[0] as { text: string }).text;
    host = await servePage(await appHostHtml());
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await host?.close();
    await client?.close();
    await h?.close();
  });

  /**
   * A page of the host whose tool calls the test's client makes, recording console errors. A
   * host that `declines` the view's calls fails them; a `silent` one never answers.
   */
  async function hostPage(errors: string[], host_ = 'answers' as Host): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.exposeFunction('callTool', (params: { name: string; arguments?: object }) =>
      host_ === 'declines'
        ? Promise.reject(new Error('this host does not pass on calls from views'))
        : host_ === 'silent'
          ? new Promise(() => {})
          : client.callTool({
              name: params.name,
              arguments: params.arguments as Record<string, unknown>,
            }),
    );
    await page.goto(host.origin);
    return page;
  }

  async function shown(
    tool: string,
    args: Record<string, unknown>,
    drawnSelector: string,
    errors: string[],
    host_: Host = 'answers',
    {
      input = 'before',
      alter,
      theme = 'light',
    }: { input?: ViewCall['input']; alter?: (data: Data) => void; theme?: ViewCall['theme'] } = {},
  ): Promise<{ page: Page; frame: Frame; result: CallToolResult }> {
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const page = await hostPage(errors, host_);
    const sent = structuredClone(result);
    alter?.(sent.structuredContent as Data);
    const frame = await openView(
      page,
      { html, tool: tools.get(tool), args, result: sent, input, theme },
      drawnSelector,
    );
    await assertAccessible(frame, `the ${tool} view (${theme})`);
    return { page, frame, result };
  }

  /** The drawn table is the answer's rows, in order, with each metric in it. */
  async function assertDrawn(frame: Frame, answer: Answer, shape: string): Promise<void> {
    const drawn = await drawnIn(frame, '#view');
    assert.equal(drawn.kind, shape);
    assert.equal(drawn.rows.length, answer.rows.length, `${shape}: a table row per answer row`);
    const dimensions = answer.columns.filter(
      (c) => !answer.metricDefinitions.some((m) => m.key === c),
    );
    answer.rows.forEach((row, i) => {
      for (const d of dimensions)
        assert.ok(
          drawn.rows[i].some((cell) => cell.includes(labelOf(text(row[d])))),
          `${shape} row ${i}: ${d} ${text(row[d])}`,
        );
    });
    assertMoneyTrue(drawn, answer, shape);
    if (shape === 'number')
      assert.equal(drawn.bigNumbers.length, answer.metricDefinitions.length, 'a big number each');
    if (shape === 'time' || shape === 'category') {
      const points = drawn.charts.flatMap((c) => c.series.flatMap((s) => s.data));
      assert.ok(points.length > 0, `${shape}: the chart has points`);
      const values = answer.rows.flatMap((row) =>
        answer.metricDefinitions.map((m) =>
          m.unit === 'cents' ? Number(row[m.key]) / 100 : Number(row[m.key]),
        ),
      );
      for (const point of points)
        if (point !== null)
          assert.ok(values.includes(point), `${shape}: ${point} is in the answer`);
    }
  }

  it('declares the view on the three tools and serves it under its own strict policy', async () => {
    for (const name of tools.keys()) {
      const meta = tools.get(name)?._meta as
        { ui?: { resourceUri?: string }; 'ui/resourceUri'?: string } | undefined;
      const drawn = ['run_semantic_query', 'run_saved_query', 'list_changes'].includes(name);
      assert.equal(meta?.ui?.resourceUri, drawn ? REPORT_VIEW_URI : undefined, name);
      // The flat key older hosts read, as the Apps SDK's registerAppTool writes it too.
      assert.equal(meta?.['ui/resourceUri'], drawn ? REPORT_VIEW_URI : undefined, name);
    }
    const listed = await client.listResources();
    assert.deepEqual(
      listed.resources.map((r) => [r.uri, r.mimeType]),
      [[REPORT_VIEW_URI, 'text/html;profile=mcp-app']],
    );
    // The host is asked for no network, resources or frames, on the resource as read.
    const read = await client.readResource({ uri: REPORT_VIEW_URI });
    const empty = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
    assert.deepEqual(read.contents[0]._meta, { ui: { csp: empty, prefersBorder: true } });
    assert.deepEqual(listed.resources[0]._meta, { ui: { csp: empty, prefersBorder: true } });
    // The HTML's own policy allows its one script and one style sheet by hash, nothing else.
    const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(policy, /default-src 'none'/);
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    const inline = (tag: string) =>
      new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`).exec(html)?.[1] ?? '';
    assert.ok(policy.includes(`script-src ${hash(inline('script'))};`), 'the script by its hash');
    assert.ok(policy.includes(`style-src ${hash(inline('style'))};`), 'the style by its hash');
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(policy, /connect-src 'none'/);
    assert.doesNotMatch(policy, /unsafe/);
    await assert.rejects(
      client.readResource({ uri: 'ui://vms-read/other.html' }),
      /Resource not found/,
    );
  });

  const SHAPES: [string, Record<string, unknown>][] = [
    [
      'time',
      { query: { metrics: ['hours_worked'], dimensions: ['work_date'], timeGrain: 'month' } },
    ],
    ['category', { query: { metrics: ['spend'], dimensions: ['supplier', 'currency'] } }],
    ['number', { query: { metrics: ['hours_worked', 'overtime_hours'] } }],
    ['table', { query: { metrics: ['hours_worked'], dimensions: ['supplier', 'org_unit'] } }],
  ];
  for (const [shape, args] of SHAPES)
    it(`draws a ${shape} result with the numbers of its structuredContent`, async () => {
      const errors: string[] = [];
      const { frame, result } = await shown('run_semantic_query', args, '.result', errors);
      await assertDrawn(frame, result.structuredContent as unknown as Answer, shape);
      assert.deepEqual(errors, []);
    });

  it('fits a host frame 320, 375 or 1280 px wide: nothing scrolls the view sideways', async () => {
    const errors: string[] = [];
    for (const [shape, args] of SHAPES.filter(([shape]) => shape === 'time' || shape === 'table')) {
      const { page, frame } = await shown('run_semantic_query', args, '.result', errors);
      for (const width of [320, 375, 1280]) {
        await page.$eval(
          '#view',
          (view, px) => ((view as HTMLElement).style.width = `${px}px`),
          width,
        );
        await frame.waitForFunction((px) => document.documentElement.clientWidth === px, width);
        // A chart follows its frame's width a moment later (a resize observer): on a busy machine
        // after the frame itself, so the width is read once it has settled (or after 5 s).
        await frame
          .waitForFunction((px) => document.documentElement.scrollWidth <= px, width, {
            timeout: 5000,
          })
          .catch(() => {});
        const wide = await frame.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= width, `${shape} at ${width} px: the view is ${wide} px wide`);
        await assertAccessible(frame, `the ${shape} view at ${width} px`);
      }
      await page.close();
    }
    assert.deepEqual(errors, []);
  });

  it("follows a dark host: its colours, its charts' palette and their contrast, and back", async () => {
    const errors: string[] = [];
    const args = {
      query: { metrics: ['hours_worked'], dimensions: ['work_date'], timeGrain: 'month' },
    };
    const { page, frame } = await shown(
      'run_semantic_query',
      args,
      '.result canvas',
      errors,
      'answers',
      {
        theme: 'dark',
      },
    );
    const look = () =>
      frame.evaluate(() => {
        const canvas = document.querySelector('.result canvas') as HTMLCanvasElement & {
          vmsChart: { data: { datasets: { borderColor: string }[] }; options: { color: string } };
        };
        return {
          theme: document.documentElement.getAttribute('data-theme'),
          paper: getComputedStyle(document.documentElement).backgroundColor,
          line: canvas.vmsChart.data.datasets[0].borderColor,
          text: canvas.vmsChart.options.color,
        };
      });
    assert.deepEqual(await look(), {
      theme: 'dark',
      paper: 'rgb(27, 29, 33)',
      line: '#8ab4f8',
      text: '#bdc1c6',
    });
    // The host turns light: the view follows, its chart drawn again in the light palette.
    await page.evaluate(() =>
      (window as unknown as { bridge: { setHostContext(c: object): void } }).bridge.setHostContext({
        theme: 'light',
      }),
    );
    await frame.waitForFunction(
      () => document.documentElement.getAttribute('data-theme') === 'light',
    );
    await frame.waitForFunction(
      () =>
        (
          document.querySelector('.result canvas') as HTMLCanvasElement & {
            vmsChart?: { data: { datasets: { borderColor: string }[] } };
          }
        )?.vmsChart?.data.datasets[0].borderColor === '#1f5fa8',
    );
    await assertAccessible(frame, 'the view turned light');
    assert.deepEqual(errors, []);
  });

  it('draws an empty result and a refusal with its code and closest metrics', async () => {
    const errors: string[] = [];
    const empty = await shown(
      'run_semantic_query',
      { query: { metrics: ['hours_worked'], timeRange: { from: '2001-01-01', to: '2001-01-31' } } },
      '.result .empty',
      errors,
    );
    assert.equal(await empty.frame.getAttribute('.result', 'data-chart-kind'), 'empty');
    const refused = await shown(
      'run_semantic_query',
      { query: { metrics: ['hours_workd'] } },
      '.refusal',
      errors,
    );
    const answer = refused.result.structuredContent as { code: string; closestMetrics: string[] };
    const words = (await refused.frame.textContent('.refusal')) ?? '';
    assert.ok(words.includes(`Refused (${answer.code})`), words);
    assert.ok(answer.closestMetrics.length > 0);
    assert.ok(words.includes(answer.closestMetrics.join(', ')), words);
    assert.deepEqual(errors, []);
  });

  for (const host_ of ['declines', 'silent'] as const)
    it(`draws with keys and codes when the host ${host_ === 'declines' ? 'declines' : 'never answers'} the view's own calls`, async () => {
      const errors: string[] = [];
      const args = {
        query: {
          metrics: ['hours_worked'],
          dimensions: ['work_date', 'supplier'],
          timeGrain: 'month',
        },
      };
      const { frame, result } = await shown('run_semantic_query', args, '.result', errors, host_);
      const answer = result.structuredContent as unknown as Answer;
      const drawn = await drawnIn(frame, '#view');
      // The time dimension is found from the dates; the headings are keys; suppliers are codes.
      assert.equal(drawn.kind, 'time');
      assert.deepEqual(drawn.headers.slice(0, 2), ['work_date', 'supplier']);
      assert.equal(await frame.$$eval('.supplier-name', (n) => n.length), 0);
      await assertDrawn(frame, answer, 'time');
      assert.deepEqual(
        errors.filter((e) => !e.includes('does not pass on calls')),
        [],
      );
    });

  it('shows a hostile saved-query name as text, running nothing', async () => {
    const errors: string[] = [];
    const { page, frame, result } = await shown(
      'run_saved_query',
      { savedQueryId: savedId },
      '.result',
      errors,
    );
    assert.equal(await frame.textContent('.view-title .third-party'), HOSTILE);
    assert.equal(await frame.$$eval('.view-title img, .view-title script', (n) => n.length), 0);
    assert.equal(await frame.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    await assertDrawn(frame, result.structuredContent as unknown as Answer, 'category');
    // Suppliers' names beside their codes, read through the host from list_suppliers.
    assert.ok((await frame.$$eval('.supplier-name', (n) => n.length)) > 0);
    assert.deepEqual(errors, []);
  });

  /** A row-budget truncation continued: Load more sends `expected` and draws both pages. */
  async function loadsMore(
    tool: string,
    args: Data,
    input: ViewCall['input'],
    expected: (first: Data) => Data,
  ) {
    const errors: string[] = [];
    const { page, frame, result } = await shown(tool, args, '.result', errors, 'answers', {
      input,
    });
    const first = result.structuredContent as {
      rows: Data[];
      nextCursor: string;
      truncatedBy: string;
    };
    assert.equal(first.truncatedBy, 'row_budget');
    await frame.click('button.more');
    await frame.waitForFunction(() => document.querySelectorAll('tbody tr').length === 700);
    const more = await callsOf(page, tool);
    assert.deepEqual(more, [
      { name: tool, arguments: { ...expected(first), cursor: first.nextCursor } },
    ]);
    const second = (await client.callTool(more[0])).structuredContent as typeof first;
    const drawn = await drawnIn(frame, '#view');
    assert.deepEqual(
      drawn.rows.map((cells) => cells[0]),
      [...first.rows, ...second.rows].map((row) => text(row.work_date)),
    );
    assert.deepEqual(errors, []);
  }

  const BUDGET = { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 700 };

  it('continues a row-budget truncation through the host: Load more is a tool call', () =>
    // The query as it ran, which the cursor is bound to (a relative period stays the same one).
    loadsMore('run_semantic_query', { query: BUDGET }, 'before', (first) => ({
      query: first.semanticQuery,
    })));

  it('continues a saved query by its id, with no arguments from the host', () =>
    loadsMore('run_saved_query', { savedQueryId: budgetId }, 'never', () => ({
      savedQueryId: budgetId,
    })));

  it('draws the change feed as a table and reads on through the host, with its type', async () => {
    const errors: string[] = [];
    const args = { limit: 5, type: 'approval_status' };
    const { page, frame, result } = await shown(
      'list_changes',
      args,
      '.changes table',
      errors,
      'answers',
      { input: 'after' },
    );
    const first = result.structuredContent as {
      items: { type: string; id: string; version: number }[];
      hasMore: boolean;
      nextCursor: string;
    };
    const ids = async () =>
      frame.$$eval('.changes tbody tr', (rows) => rows.map((r) => r.getAttribute('data-id')));
    assert.deepEqual(
      await ids(),
      first.items.map((item) => item.id),
    );
    assert.equal(first.hasMore, true);
    await frame.click('.changes button.more');
    await frame.waitForFunction(() => document.querySelectorAll('.changes tbody tr').length === 10);
    const more = await callsOf(page, 'list_changes');
    assert.deepEqual(more, [
      { name: 'list_changes', arguments: { ...args, cursor: first.nextCursor } },
    ]);
    const next = (await client.callTool(more[0])).structuredContent as typeof first;
    assert.deepEqual(
      await ids(),
      [...first.items, ...next.items].map((item) => item.id),
    );
    assert.deepEqual(errors, []);
  });

  it('says a refused Load more of the change feed by its code', async () => {
    const errors: string[] = [];
    const { frame } = await shown(
      'list_changes',
      { limit: 5 },
      '.changes table',
      errors,
      'answers',
      {
        alter: (data) => {
          data.nextCursor = `x${String(data.nextCursor)}`;
        },
      },
    );
    await frame.click('.changes button.more');
    await frame.waitForSelector('.changes .refusal');
    assert.match(
      (await frame.textContent('.changes .refusal')) ?? '',
      /Refused \(invalid_cursor\)/,
    );
    assert.equal(await frame.$$eval('.changes tbody tr', (rows) => rows.length), 5);
    assert.deepEqual(errors, []);
  });

  /** An invoice a load may delete alone (no credit note corrects it), the `skip`-th by id. */
  async function deletableInvoice(skip = 0): Promise<Data> {
    const rows = await h.all<Data>(
      `SELECT * FROM invoices i WHERE workspace_id = ?
       AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.corrects_invoice_ref = i.id) ORDER BY id`,
      WS,
    );
    return rows[skip];
  }

  const deletion = (id: unknown, deletedAt: string) => ({
    type: 'invoice' as const,
    id: String(id),
    deleted_at: deletedAt,
    file: 'deletions.csv',
    line: 2,
  });

  /** Each drawn row of the change feed: its data-id, class and cells' text. */
  const feedRows = (frame: Frame) =>
    frame.$$eval('.changes tbody tr', (rows) =>
      rows.map((r) => ({
        id: r.getAttribute('data-id'),
        removed: r.classList.contains('removed'),
        cells: [...(r as HTMLTableRowElement).cells].map((c) => c.textContent),
      })),
    );

  it('draws a deleted record as a tombstone row: version, type, id and "deleted", text only', async () => {
    // The end of the invoice feed as it stands.
    let cursor: string | undefined;
    for (;;) {
      const page = (
        await client.callTool({
          name: 'list_changes',
          arguments: { type: 'invoice', ...(cursor ? { cursor } : {}) },
        })
      ).structuredContent as { hasMore: boolean; nextCursor: string };
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    const voided = await deletableInvoice(0);
    const deleted = await deletableInvoice(1);
    const load = await h.store.openLoad();
    await load.insert('invoices', [
      { ...voided, status: 'void', updated_at: '2030-01-01T00:00:00.000Z' } as never,
    ]);
    await load.remove(WS, [deletion(deleted.id, '2030-01-01T00:00:00.000Z')]);
    const { version } = await load.finish();

    const errors: string[] = [];
    const args = { type: 'invoice', cursor };
    const { page, frame, result } = await shown(
      'list_changes',
      args,
      '.changes table',
      errors,
      'answers',
      {
        // Beside them, a tombstone whose id is hostile text, no longer visible to this token.
        alter: (data) => {
          (data.items as Data[]).push({
            type: 'invoice',
            id: HOSTILE,
            version,
            record: null,
            removed: { reason: 'not_visible' },
          });
        },
      },
    );
    const items = (result.structuredContent as { items: Data[] }).items;
    assert.deepEqual(
      items.map((item) => [item.id, item.record === null ? item.removed : 'record']),
      [
        [String(voided.id), 'record'],
        [String(deleted.id), { reason: 'deleted' }],
      ],
    );
    const number = (voided as { number: string }).number;
    assert.deepEqual(await feedRows(frame), [
      {
        id: String(voided.id),
        removed: false,
        cells: [
          String(version),
          'invoice',
          String(voided.id),
          number,
          'void',
          '2030-01-01 00:00 UTC',
        ],
      },
      {
        id: String(deleted.id),
        removed: true,
        cells: [String(version), 'invoice', String(deleted.id), 'deleted', '—', '—'],
      },
      {
        id: HOSTILE,
        removed: true,
        cells: [String(version), 'invoice', HOSTILE, 'no longer visible', '—', '—'],
      },
    ]);
    assert.equal(await frame.$$eval('.changes img, .changes tbody script', (n) => n.length), 0);
    assert.equal(await frame.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assert.deepEqual(errors, []);
  });

  it('says an expired cursor on Load more by its code: cursor_expired', async () => {
    const errors: string[] = [];
    const { frame } = await shown('list_changes', { limit: 5 }, '.changes table', errors);
    // With no days kept, this deletion's tombstone goes at once: the page's cursor is expired.
    const load = await h.store.openLoad({ tombstoneDays: 0 });
    await load.remove(WS, [deletion((await deletableInvoice(2)).id, '2030-01-02T00:00:00.000Z')]);
    await load.finish();
    await frame.click('.changes button.more');
    await frame.waitForSelector('.changes .refusal');
    assert.match(
      (await frame.textContent('.changes .refusal')) ?? '',
      /Refused \(cursor_expired\)/,
    );
    assert.equal(await frame.$$eval('.changes tbody tr', (rows) => rows.length), 5);
    assert.deepEqual(errors, []);
  });

  it('saves "Download CSV" through the host, as the table reads', async () => {
    const errors: string[] = [];
    const args = { query: { metrics: ['spend'], dimensions: ['supplier', 'currency'] } };
    const { page, frame } = await shown('run_semantic_query', args, '.result', errors);
    await frame.click('.result button.secondary');
    await page.waitForFunction(
      () => (window as unknown as { downloads: unknown[] }).downloads.length === 1,
    );
    const [download] = await page.evaluate(
      () =>
        (
          window as unknown as {
            downloads: {
              contents: { resource: { uri: string; mimeType: string; text: string } }[];
            }[];
          }
        ).downloads,
    );
    const { resource } = download.contents[0];
    assert.equal(resource.mimeType, 'text/csv');
    assert.match(resource.uri, /^file:\/\/\/Report\.csv$/);
    const drawn = await drawnIn(frame, '#view');
    const lines = resource.text.trimEnd().split('\r\n');
    assert.equal(lines.length, drawn.rows.length + 1);
    assert.ok(lines[0].startsWith('Supplier,'), lines[0]);
    assert.deepEqual(errors, []);
  });
});
