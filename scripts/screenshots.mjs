// Screenshots of the web page for docs/ (npm run screenshots, after npm run build): a dashboard
// and the explorer, in headless Chromium against a server on the tiny seed (the tests' harness),
// with today set to the seed's day so relative periods have data.
import { AS_OF, startHarness } from '../dist/test/support/harness.js';
import { launchBrowser } from '../dist/test/support/browser.js';

const h = await startHarness({ now: () => new Date(`${AS_OF}T12:00:00.000Z`) });
const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${base}/app`);
  await page.fill('#token', h.tokens.staff);
  await page.click('form.sign-in button[type=submit]');
  await page.click('a[href^="#/dashboard/"]');
  await page.waitForSelector('.tile');
  await page.waitForFunction(() => document.querySelectorAll('.tile .loading').length === 0);
  await page.screenshot({ path: 'docs/web-dashboard.png', fullPage: true });
  await page.goto(`${base}/app#/explorer`);
  await page.waitForSelector('main h1');
  const explorer = process.env.EXPLORER_SCRIPT;
  if (explorer) await (await import(explorer)).fill(page);
  await page.screenshot({ path: 'docs/web-explorer.png', fullPage: true });
  console.log('wrote docs/web-dashboard.png and docs/web-explorer.png');
} finally {
  await browser.close();
  await h.close();
}
