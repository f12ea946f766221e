import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { audits, seriousFindings } from '../support/accessibility.js';
import {
  launchBrowser,
  servePage,
  skipWithoutChromium,
  type PageServer,
  type TestBrowser,
} from '../support/browser.js';

/**
 * The audit the browser tests run at every state they reach (test/support/accessibility.ts) can
 * fail: a page with faults of each kind the page must not have gets them named, and the same page
 * mended gets none.
 */
const FAULTY = `<!doctype html><html lang="en"><head><title>faults</title></head><body><main>
<p style="color:#b0b0b0;background:#ffffff">Text at 2:1 against its background</p>
<button></button>
<input type="text">
</main></body></html>`;
const MENDED = `<!doctype html><html lang="en"><head><title>mended</title></head><body><main>
<p style="color:#4a4a4a;background:#ffffff">Text at 8:1 against its background</p>
<button>Run</button>
<label for="q">Query</label><input id="q" type="text">
</main></body></html>`;

describe('the accessibility audit', { skip: skipWithoutChromium() }, () => {
  let browser: TestBrowser;
  const servers: PageServer[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
  });

  async function findings(html: string) {
    const server = await servePage(html);
    servers.push(server);
    const page = await browser.newPage();
    await page.goto(server.origin);
    return (await seriousFindings(page)).map((f) => f.rule).sort();
  }

  it('names low contrast, a nameless button and an unlabelled field as serious or critical', async () => {
    assert.deepEqual(await findings(FAULTY), ['button-name', 'color-contrast', 'label']);
  });

  it("audits a long table's first 25 rows and its marked ones, not the plain rows past them", async () => {
    const table = (faultAt: number, marked = '') =>
      `<!doctype html><html lang="en"><head><title>table</title></head><body><main><table>
<thead><tr><th>Id</th></tr></thead><tbody>${Array.from({ length: 40 }, (_, i) =>
        i + 1 === faultAt
          ? `<tr${marked}><td><button></button></td></tr>`
          : `<tr><td>row ${i + 1}</td></tr>`,
      ).join('')}</tbody></table></main></body></html>`;
    assert.deepEqual(await findings(table(3)), ['button-name'], 'row 3 is audited');
    assert.deepEqual(await findings(table(25)), ['button-name'], 'row 25 is audited');
    assert.deepEqual(
      await findings(table(30, ' class="entry-reversal"')),
      ['button-name'],
      'a marked row past 25 is audited',
    );
    assert.deepEqual(await findings(table(30)), [], 'a plain row past 25 is left out');
  });

  it('audits a state once, and anew once its markup, a style rule, a field, the width or the colour scheme changed', async () => {
    // Faults only at 375 px and in a dark scheme (grey on white), and one a rule can add.
    const html = `<!doctype html><html lang="en"><head><title>states</title><style>
p { color: #4a4a4a; background: #ffffff }
@media (max-width: 400px) { p.narrow { color: #b0b0b0 } }
@media (prefers-color-scheme: dark) { p.dark { color: #b0b0b0 } }
</style></head><body><main><p class="narrow dark">Text</p><p class="ruled">More text</p>
<label for="q">Query</label><input id="q" type="text"></main></body></html>`;
    const server = await servePage(html);
    servers.push(server);
    const open = async () => {
      const page = await browser.newPage();
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(server.origin);
      return page;
    };
    const rules = async (page: Awaited<ReturnType<typeof open>>) => {
      const before = { ...audits };
      const found = (await seriousFindings(page)).map((f) => f.rule).sort();
      return {
        found,
        run: audits.run - before.run,
        remembered: audits.remembered - before.remembered,
      };
    };
    const page = await open();
    assert.deepEqual(await rules(page), { found: [], run: 1, remembered: 0 });
    assert.deepEqual(
      await rules(await open()),
      { found: [], run: 0, remembered: 1 },
      'the same state',
    );

    await page.fill('#q', 'typed');
    assert.deepEqual(await rules(page), { found: [], run: 1, remembered: 0 }, "a field's value");
    await page.evaluate(() => document.styleSheets[0]?.insertRule('p.ruled { color: #b0b0b0 }'));
    assert.deepEqual(await rules(page), { found: ['color-contrast'], run: 1, remembered: 0 });
    await page.evaluate(() => document.styleSheets[0]?.deleteRule(0));
    assert.deepEqual(await rules(page), { found: [], run: 0, remembered: 1 }, 'the rule gone');
    await page.evaluate(() =>
      document.querySelector('main')?.append(document.createElement('button')),
    );
    assert.deepEqual(await rules(page), { found: ['button-name'], run: 1, remembered: 0 });
    await page.evaluate(() => document.querySelector('main button')?.remove());

    await page.setViewportSize({ width: 375, height: 800 });
    assert.deepEqual(await rules(page), { found: ['color-contrast'], run: 1, remembered: 0 });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await rules(page), { found: ['color-contrast'], run: 1, remembered: 0 });
  });

  it('finds nothing once they are mended', async () => {
    assert.deepEqual(await findings(MENDED), []);
  });
});
