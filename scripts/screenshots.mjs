// Screenshots of the web page for docs/ (npm run screenshots, after npm run build): a dashboard
// and the explorer, in headless Chromium against a server on the tiny seed (the tests' harness),
// with today set to the seed's day so relative periods have data.
import { AS_OF, startHarness } from '../dist/test/support/harness.js';
import { launchBrowser, signIn } from '../dist/test/support/browser.js';

const h = await startHarness({ now: () => new Date(`${AS_OF}T12:00:00.000Z`) });
const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, base, h.tokens.staff);
  await page.click('a[href^="#/dashboard/"]');
  await page.waitForSelector('.tile');
  await page.waitForFunction(() => document.querySelectorAll('.tile .loading').length === 0);
  await page.screenshot({ path: 'docs/web-dashboard.png', fullPage: true });
  // The explorer opened from a shared address: it fills the form and runs the query.
  const body = {
    query: {
      metrics: ['hours_worked', 'overtime_hours'],
      dimensions: ['work_date'],
      timeGrain: 'month',
      timeRange: { from: '2025-07-01', to: '2026-06-30' },
    },
  };
  await page.goto(`${base}/app#/explorer/${encodeURIComponent(JSON.stringify(body))}`);
  await page.waitForSelector('.explorer-result canvas');
  await page.screenshot({ path: 'docs/web-explorer.png', fullPage: true });
  console.log('wrote docs/web-dashboard.png and docs/web-explorer.png');
} finally {
  await browser.close();
  await h.close();
}
