import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  launchBrowser,
  servePage,
  skipWithoutChromium,
  type PageServer,
  type TestBrowser,
} from '../support/browser.js';
import { startHarness, type Harness } from '../support/harness.js';
import { UUID_V4 } from '../support/assertions.js';
import { INITIALIZE_REQUEST } from '../support/mcp-client.js';

/** What the page reports of one cross-origin fetch: what it could read, or the error it got. */
interface Outcome {
  status?: number;
  requestId?: string | null;
  challenge?: string | null;
  body?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: string;
}

/**
 * Runs in the page: the three calls a web app makes with a token (a GET list, the preflighted
 * POST of a report query, an MCP initialize with its protocol-version header) and one without a
 * token (a 401 the page must be able to read).
 */
function callsFromPage({
  api,
  token,
  initialize,
}: {
  api: string;
  token: string;
  initialize: unknown;
}) {
  const call = async (path: string, init: RequestInit) => {
    try {
      const response = await fetch(`${api}${path}`, init);
      return {
        status: response.status,
        requestId: response.headers.get('x-request-id'),
        challenge: response.headers.get('www-authenticate'),
        body: await response.json(),
      };
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message}` };
    }
  };
  const auth = { authorization: `Bearer ${token}` };
  return Promise.all([
    call('/api/v1/workers?limit=2', { headers: auth }),
    call('/api/v1/reports/query', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: { metrics: ['invoice_count'] } }),
    }),
    call('/mcp', {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(initialize),
    }),
    call('/api/v1/workers', {}),
  ]);
}

describe(
  'CORS from a real browser: a page on a listed origin calls the API cross-origin',
  { skip: skipWithoutChromium() },
  () => {
    let h: Harness;
    let api: string;
    let browser: TestBrowser;
    let allowedPage: PageServer;
    let otherPage: PageServer;

    before(async () => {
      const html = '<!doctype html><title>vms-read client</title><p>client</p>';
      allowedPage = await servePage(html);
      otherPage = await servePage(html);
      h = await startHarness({ origins: { allowedOrigins: [allowedPage.origin] } });
      // 127.0.0.1: /mcp's Host check accepts it on a loopback address; the page is another port.
      api = await h.app.listen({ host: '127.0.0.1', port: 0 });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await h?.close();
      await allowedPage?.close();
      await otherPage?.close();
    });

    async function callFrom(origin: string): Promise<Outcome[]> {
      const page = await browser.newPage();
      await page.goto(`${origin}/`);
      return page.evaluate(callsFromPage, {
        api,
        token: h.tokens.staff,
        initialize: INITIALIZE_REQUEST,
      });
    }

    it('reads a list, a report, an MCP initialize and a 401 with their headers', async () => {
      const [list, report, mcp, unauthorized] = await callFrom(allowedPage.origin);
      assert.equal(list.status, 200, JSON.stringify(list));
      assert.match(String(list.requestId), UUID_V4);
      assert.equal(list.requestId, list.body.request_id);
      assert.equal(list.body.data.items.length, 2);

      assert.equal(report.status, 200, JSON.stringify(report));
      assert.equal(report.body.data.status, 'ok');

      assert.equal(mcp.status, 200, JSON.stringify(mcp));
      assert.equal(mcp.body.result.serverInfo.name, 'vms-read');
      assert.match(String(mcp.requestId), UUID_V4);

      assert.equal(unauthorized.status, 401, JSON.stringify(unauthorized));
      assert.equal(unauthorized.body.error.code, 'unauthorized');
      assert.equal(unauthorized.requestId, unauthorized.body.request_id);
      assert.match(String(unauthorized.challenge), /^Bearer .*resource_metadata=/);
    });

    it('blocks the same page on an origin that is not listed (TypeError, nothing read)', async () => {
      const outcomes = await callFrom(otherPage.origin);
      for (const outcome of outcomes)
        assert.deepEqual(outcome, { error: 'TypeError: Failed to fetch' });
    });
  },
);
