// Screenshots of the web page for docs/ (npm run screenshots, after npm run build), in headless
// Chromium against a server on the tiny seed (the tests' harness), with today set to the seed's
// day on the server and in the browser, so relative periods have data. docs/before/ keeps the
// page as it was before issue 22, for comparison.
import { AS_OF, WS, startHarness } from '../dist/test/support/harness.js';
import { launchBrowser, servePage, signIn } from '../dist/test/support/browser.js';
import { appHostHtml, openView } from '../dist/test/support/app-host.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REPORT_VIEW_URI } from '../dist/src/mcp/report-view.js';
import { pkce, registerClient } from '../dist/test/support/oauth-flow.js';

const NOON = new Date(`${AS_OF}T12:00:00.000Z`);
// With the access trail on: the staff token holds read:audit, and its trail is shot below.
const h = await startHarness({ now: () => NOON, audit: true });
const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
const browser = await launchBrowser();

/** Signs in with a token, opens an address, waits until nothing is loading, and shoots. */
async function shoot(file, token, hash, { width = 1280, ready = 'main h1', fullPage = true } = {}) {
  const page = await browser.newPage();
  await page.clock.setFixedTime(NOON);
  await page.setViewportSize({ width, height: 900 });
  await signIn(page, base, token);
  await page.waitForSelector('main .home');
  if (hash) {
    await page.goto(`${base}/app${hash}`);
    await page.waitForFunction(() => !document.querySelector('main .home'));
  }
  await page.waitForSelector(ready);
  await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0);
  await page.screenshot({ path: `docs/${file}`, fullPage });
  await page.close();
}

/**
 * The MCP Apps report view as a host draws it: the test host (the Apps SDK's app-bridge, an
 * iframe), a real MCP client calling the tools, and the view's frame shot alone.
 */
async function shootMcpApp() {
  const client = new Client({ name: 'vms-read screenshots', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${h.tokens.staff}` } },
    }),
  );
  const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  const html = (await client.readResource({ uri: REPORT_VIEW_URI })).contents[0].text;
  const host = await servePage(await appHostHtml());
  const view = async (file, tool, args, drawn) => {
    const page = await browser.newPage();
    await page.exposeFunction('callTool', (params) => client.callTool(params));
    await page.goto(host.origin);
    const result = await client.callTool({ name: tool, arguments: args });
    await openView(page, { html, tool: tools.get(tool), args, result }, drawn);
    await page.locator('#view').screenshot({ path: `docs/${file}` });
    await page.close();
  };
  try {
    const query = {
      metrics: ['spend'],
      dimensions: ['invoice_period', 'currency'],
      timeGrain: 'month',
      timeRange: { from: '2025-07-01', to: '2026-06-30' },
    };
    await view('mcp-app-report.png', 'run_semantic_query', { query }, '.result canvas');
    await view('mcp-app-changes.png', 'list_changes', { limit: 8 }, '.changes table');
  } finally {
    await host.close();
    await client.close();
  }
}

/**
 * The built-in authorization server's pages as a person meets them when an MCP host connects:
 * the sign-in page (with the demo's accounts, as `npm start` shows it), the consent page for an
 * app named Claude, and the web page's own sign-in card.
 */
async function shootSignIn() {
  const server = await startHarness({
    oauthServer: true,
    demoAccounts: [
      { name: 'staff', label: 'Staff, every scope' },
      { name: 'worker', label: 'A worker' },
      { name: 'billing', label: 'A billing entity' },
    ],
  });
  const at = await server.app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const client = await registerClient(at, { client_name: 'Claude' });
    const { challenge } = pkce();
    const url = new URL(`${at}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: client.redirect_uris[0],
      scope: 'read:program read:financial read:workforce offline_access',
      prompt: 'consent',
      state: 'screenshot',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${at}/mcp`,
    }))
      url.searchParams.set(name, value);
    const page = await browser.newPage();
    await page.setViewportSize({ width: 720, height: 720 });
    await page.goto(url.href);
    await page.waitForSelector('input[name=key]');
    await page.screenshot({ path: 'docs/oauth-sign-in.png', fullPage: true });
    // The same page on a phone: the card inside the window (issue 47).
    await page.setViewportSize({ width: 375, height: 720 });
    await page.screenshot({ path: 'docs/oauth-sign-in-phone.png', fullPage: true });
    await page.setViewportSize({ width: 720, height: 720 });
    await page.fill('input[name=key]', server.tokens.staffNoPii);
    await page.click('button:has-text("Sign in")');
    await page.waitForSelector('button[value=allow]');
    await page.screenshot({ path: 'docs/oauth-consent.png', fullPage: true });
    // The page's sign-in card as a person meets it: what signing in does, the demo's accounts.
    await page.goto(`${at}/app`);
    await page.waitForSelector('#sign-in-oauth');
    await page.screenshot({ path: 'docs/web-sign-in.png', fullPage: true });
    await page.close();
  } finally {
    await server.close();
  }
}

/** `npm run screenshots -- sign-in` shoots the sign-in pages alone. */
const only = process.argv[2];

try {
  await shootSignIn();
  console.log('wrote docs/oauth-{sign-in,sign-in-phone,consent}.png and docs/web-sign-in.png');
  if (only === 'sign-in') process.exit(0);
  await shoot('web-home.png', h.tokens.staff, '');
  await shoot(
    'web-dashboard.png',
    h.tokens.staff,
    '#/dashboard/program-operations?period=quarter:-1&compare=1',
    { ready: '.tile .result' },
  );
  // The explorer opened from a shared address: it fills the form and runs the query.
  const body = {
    query: {
      metrics: ['spend'],
      dimensions: ['invoice_period', 'currency'],
      timeGrain: 'month',
      timeRange: { from: '2025-07-01', to: '2026-06-30' },
    },
  };
  await shoot(
    'web-explorer.png',
    h.tokens.staff,
    `#/explorer/${encodeURIComponent(JSON.stringify(body))}`,
    {
      ready: '.explorer-result canvas',
    },
  );
  await shoot('web-invoices.png', h.tokens.staff, '#/records/invoices', {
    ready: '.record-list tbody tr',
  });
  // The records search (issue 36): a month's issued invoices, newest first, and a phone's
  // timesheets awaiting approval with the workers' names beside their ids, the search folded to
  // one line (issue 47).
  await shoot(
    'web-invoices-search.png',
    h.tokens.staff,
    '#/records/invoices?status=issued&periodFrom=2026-05-01&periodTo=2026-05-31',
    { ready: '.record-list tbody tr' },
  );
  await shoot('web-phone-timesheets.png', h.tokens.staff, '#/records/timesheets?status=submitted', {
    width: 375,
    ready: '.record-list tbody tr .worker-name',
  });
  // A consolidated invoice's lines at 1280 px: eleven fields in pairs, names under ids (issue 47).
  const consolidated = await h.one(
    `SELECT i.id FROM invoices i WHERE i.workspace_id = ? AND i.grouping_rule = 'consolidated'
     ORDER BY (SELECT COUNT(*) FROM invoice_lines l WHERE l.invoice_id = i.id) DESC LIMIT 1`,
    WS,
  );
  await shoot('web-invoice-lines.png', h.tokens.staff, `#/invoice/${consolidated.id}`, {
    ready: '.record-page tbody tr .worker-name',
    fullPage: false,
  });
  // The access trail (issue 57): reads by a key to show, every column in view at 1280 px, each
  // event a card at 375 px.
  const read = (path) =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${h.tokens.staff}` } });
  await read('/api/v1/workers?limit=8');
  await read('/api/v1/workers/item?id=wkr_bus_0000001');
  await read('/api/v1/timesheets?limit=3');
  await h.executor.deps.answers.flushAll();
  await shoot('web-access-trail.png', h.tokens.staff, '#/access-trail', {
    ready: '.record-list tbody tr .worker-name',
    fullPage: false,
  });
  await shoot('web-phone-access-trail.png', h.tokens.staff, '#/access-trail', {
    width: 375,
    ready: '.record-list tbody tr .worker-name',
    fullPage: false,
  });
  await shoot('web-worker-home.png', h.tokens.worker, '', { ready: '.home' });
  await shoot('web-phone-dashboard.png', h.tokens.staff, '#/dashboard/program-operations', {
    width: 375,
    ready: '.tile .result',
  });
  console.log(
    'wrote docs/web-{home,dashboard,explorer,invoices,invoices-search,invoice-lines,phone-timesheets,access-trail,phone-access-trail,worker-home,phone-dashboard}.png',
  );
  await shootMcpApp();
  console.log('wrote docs/mcp-app-{report,changes}.png');
} finally {
  await browser.close();
  await h.close();
}
