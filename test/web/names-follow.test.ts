/**
 * Names follow the data (issue 47), in Chromium: a worker erased (`vms-read erase`'s own code)
 * while the page shows its name, in a timesheets list, in the worker search box's choices and
 * beside an invoice's lines, shows "(erased)" at the next view drawn, without a reload: before
 * each view the page asks the change feed (from its `start=latest` cursor) whether the data
 * moved, and reads the names it keeps again when it did. And when nothing moved, the names kept
 * are used as they are: no name is asked for again.
 * SQLite only: what is tested is the page; the feed is tested on both stores (http/changes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { eraseWorker } from '../../src/admin/erase.js';
import { signedInAlready, skipWithoutChromium } from '../support/browser.js';
import { WS } from '../support/harness.js';
import { livePages, open } from './record-pages.js';

describe('names follow the data (sqlite)', { skip: skipWithoutChromium() }, () => {
  const live = livePages('sqlite');

  /** What the page shows of a worker: in the list's cells, the search box's choices, the lines. */
  const namesShown = (page: Page, scope: string) =>
    page.$$eval(`${scope} .worker-name`, (spans) => spans.map((s) => s.textContent ?? ''));
  const offered = (page: Page) =>
    page.$$eval('.list-search datalist option', (options) =>
      options.map((o) => (o as HTMLOptionElement).value),
    );
  /** The search box's choices are read once it is used (issue 57): focus it, wait for `label`. */
  async function offers(page: Page, label: string): Promise<void> {
    await page.focus('.list-search input[name$=worker]');
    await page.waitForFunction(
      (label) =>
        [...document.querySelectorAll('.list-search datalist option')].some(
          (o) => (o as HTMLOptionElement).value === label,
        ),
      label,
    );
  }

  it('shows an erased worker as "(erased)" at the next view, in lists, choices and lines', async () => {
    // A worker with timesheets and invoice lines of their own.
    const worker = await live.h.one<{ id: string; display_name: string; invoice_id: string }>(
      `SELECT w.id, w.display_name, l.invoice_id FROM workers w
         JOIN invoice_lines l ON l.worker_ref = w.id
        WHERE w.workspace_id = ? AND EXISTS (SELECT 1 FROM timesheets t WHERE t.worker_id = w.id)
        ORDER BY w.id LIMIT 1`,
      WS,
    );
    const page = await live.browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await signedInAlready(page, live.base, live.h.tokens.staff);
    // The names of a view's workers are asked together (list_workers with ids).
    const getWorker: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      const ids = url.pathname === '/api/v1/workers' ? url.searchParams.get('ids') : null;
      if (ids?.split(',').includes(worker.id)) getWorker.push(request.url());
    });

    const timesheets = `#/records/timesheets?workerId=${worker.id}`;
    await open(page, timesheets, '.record-list tbody tr .worker-name');
    assert.ok((await namesShown(page, '.record-list')).every((n) => n === worker.display_name));
    await offers(page, `${worker.display_name} · ${worker.id}`);
    await open(page, `#/invoice/${worker.invoice_id}`, '.record-page tbody tr .worker-name');
    assert.ok((await namesShown(page, '.record-page')).includes(worker.display_name));
    // Nothing moved: going back draws the kept name, with no call for it.
    const asked = getWorker.length;
    await open(page, timesheets, '.record-list tbody tr .worker-name');
    assert.equal(getWorker.length, asked, 'the kept name, not asked again');

    await eraseWorker(live.h.store, WS, worker.id);
    // The tab stays open; the next views drawn show the erasure.
    await open(page, `#/invoice/${worker.invoice_id}`, '.record-page tbody tr .worker-name');
    const lines = await namesShown(page, '.record-page');
    assert.ok(lines.includes('(erased)'), lines.join());
    assert.ok(!lines.includes(worker.display_name), 'the old name is gone from the lines');
    await open(page, timesheets, '.record-list tbody tr .worker-name');
    assert.ok((await namesShown(page, '.record-list')).every((n) => n === '(erased)'));
    await offers(page, `(erased) · ${worker.id}`);
    assert.ok(
      !(await offered(page)).some((label) => label.includes(worker.display_name)),
      'the search box offers the old name no more',
    );
    await page.close();
  });
});
