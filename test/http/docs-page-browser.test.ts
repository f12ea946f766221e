import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, skipWithoutChromium, type TestBrowser } from '../support/browser.js';
import { startHarness, type Harness } from '../support/harness.js';
import { OPERATIONS } from '../../src/operations/registry.js';

/** The reference page at /docs, opened in headless Chromium: it draws under its own CSP. */
describe('the /docs page in a real browser', { skip: skipWithoutChromium() }, () => {
  let h: Harness;
  let base: string;
  let browser: TestBrowser;
  before(async () => {
    h = await startHarness();
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it('lists every operation from /openapi.json, with no CSP violation and no outside request', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base)) outside.push(request.url());
    });
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const ids = await page.$$eval('.opblock', (blocks) => blocks.map((b) => b.id));
    for (const operation of OPERATIONS)
      assert.ok(
        ids.some((id) => id.includes(operation.name)),
        `${operation.name} is on the page (${ids.length} blocks)`,
      );
    assert.deepEqual(problems, [], 'no console error (a CSP violation is one)');
    assert.deepEqual(outside, [], 'nothing fetched from another origin');
  });
});
