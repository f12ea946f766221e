import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/accessibility.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import {
  AS_OF,
  startHarness,
  type Dialect,
  type Harness,
  type HarnessOptions,
} from '../support/harness.js';

/** What the record-page tests read off the page. */

export interface Table {
  headings: string[];
  rows: { id: string; className: string; cells: string[] }[];
}
/**
 * A table of the page as text: its headings, and per row its data-id, class and cells; a cell of
 * two fields (an invoice's lines) counts as two, as in its CSV.
 */
export function tableIn(page: Page, scope: string): Promise<Table> {
  return page.$eval(scope, (root) => {
    const texts = (cells: Iterable<Element>) =>
      [...cells].flatMap((cell) => {
        const parts = [...cell.querySelectorAll(':scope > .part')];
        return (parts.length > 0 ? parts : [cell]).map((part) => part.textContent ?? '');
      });
    return {
      headings: texts(root.querySelectorAll('thead th')),
      rows: [...root.querySelectorAll('tbody tr')].map((tr) => ({
        id: tr.getAttribute('data-id') ?? '',
        className: tr.getAttribute('class') ?? '',
        cells: texts((tr as HTMLTableRowElement).cells),
      })),
    };
  });
}
export const column = (table: Table, heading: string) => {
  const at = table.headings.indexOf(heading);
  assert.ok(at >= 0, `a "${heading}" column in ${table.headings.join(', ')}`);
  return table.rows.map((row) => row.cells[at]);
};

/** Goes to a page of the signed-in app by its address and waits for what shows it drawn. */
export async function open(page: Page, hash: string, drawn: string): Promise<void> {
  await page.evaluate((to) => (location.hash = to), hash);
  await page.waitForSelector(drawn);
  await assertAccessible(page, hash);
}

/** What a describe of record pages runs against: a harness served on a port, and Chromium. */
export interface LivePages {
  h: Harness;
  base: string;
  browser: TestBrowser;
}

/**
 * Starts, before the describe's tests, a harness on `dialect` (its clock at the seed's as-of
 * day; `options` added) listening on a free port and a browser, and stops both after them.
 */
export function livePages(dialect: Dialect, options: HarnessOptions = {}): LivePages {
  const live = {} as LivePages;
  before(async () => {
    live.h = await startHarness({
      dialect,
      now: () => new Date(`${AS_OF}T12:00:00.000Z`),
      ...options,
    });
    live.base = await live.h.app.listen({ host: '127.0.0.1', port: 0 });
    live.browser = await launchBrowser();
  });
  after(async () => {
    await live.browser?.close();
    await live.h?.close();
  });
  return live;
}
