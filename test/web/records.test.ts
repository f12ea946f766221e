import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createToken } from '../../src/auth/tokens.js';
import { onOneStore, signedInAlready, skipWithoutChromium } from '../support/browser.js';
import { DIALECTS, WS } from '../support/harness.js';
import { downloadCsv } from './drawn.js';
import { column, livePages, open, tableIn } from './record-pages.js';

/**
 * The record pages in headless Chromium against a live server on the tiny seed, for every role:
 * what the page shows is read from the DOM and compared with the API's own answers to the same
 * token (lists page by page, invoices with their lines, timesheets with their corrections,
 * workers with or without read:pii, the home page's cards). A list paged, an invoice's lines and a
 * timesheet's corrections run on both stores; the rest on the first (`onOneStore`): the API
 * answers both stores alike (test/http/resources.test.ts and visibility.test.ts hold that).
 */

type ApiRecord = Record<string, unknown>;
interface RecordPage {
  items: ApiRecord[];
  hasMore: boolean;
  nextCursor: string | null;
}
interface InvoiceItem {
  invoice: ApiRecord & { id: string; currency: string; totalCents: number };
  lines: (ApiRecord & { id: string; amountCents: number; currency: string })[];
  linesTruncated: boolean;
  lineCount: number;
}
interface TimesheetItem {
  timesheet: ApiRecord & { id: string; entryMode: string };
  entries: (ApiRecord & { id: string; kind: string; correctsEntryId: string | null })[];
  entriesTruncated: boolean;
}

/** The seven record lists: the page's key is the API's path under /api/v1. */
const LISTS = [
  'workers',
  'timesheets',
  'invoices',
  'suppliers',
  'assignments',
  'expenses',
  'approval-statuses',
];

/** Money as a person reads it: currency units with the record's own currency code (EUR 1.00). */
const money = (cents: number, currency: string) =>
  new Intl.NumberFormat('en', {
    style: 'currency',
    currency,
    currencyDisplay: 'code',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(cents / 100);
const hours = (minutes: number) =>
  `${new Intl.NumberFormat('en', { maximumFractionDigits: 2 }).format(minutes / 60)} h`;

const WITHHELD = 'withheld (needs read:pii)';
const NOT_STAFF = 'Reports are for staff tokens; this token reads the records its role may see.';
const NO_PROGRAM =
  'Reports are for staff tokens with the read:program scope; this token reads the records its role and scopes allow.';

/** The field of a record page by its label. */
const fieldText = (page: Page, label: string) =>
  page.$$eval(
    '.record-fields div',
    (divs, wanted) =>
      divs
        .filter((d) => d.querySelector('dt')?.textContent === wanted)
        .map((d) => ({
          text: d.querySelector('dd')?.textContent ?? '',
          withheld: d.querySelector('dd .withheld') !== null,
          thirdParty: d.querySelector('dd .third-party') !== null,
        }))[0],
    label,
  );

for (const dialect of DIALECTS) {
  describe(`record pages in a real browser (${dialect})`, { skip: skipWithoutChromium() }, () => {
    const live = livePages(dialect);
    const itOnOneStore = onOneStore(dialect);

    /** The API's own answer, with the same token the page signed in with. */
    async function api<T>(token: string, path: string, query: Record<string, unknown> = {}) {
      const url = new URL(`${live.base}/api/v1/${path}`);
      for (const [key, value] of Object.entries(query))
        if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      const body = (await response.json()) as { data: T };
      return { status: response.status, data: body.data };
    }
    /** The lists that hold records for a token: 200 with at least one item. */
    async function listsWithRecords(token: string) {
      const answers = await Promise.all(
        LISTS.map(async (list) => ({
          list,
          ...(await api<RecordPage>(token, list, { limit: 1 })),
        })),
      );
      return {
        withRecords: answers.filter((a) => a.status === 200 && a.data.items.length > 0),
        empty: answers.filter((a) => a.status === 200 && a.data.items.length === 0),
      };
    }
    /** A timesheet of the seed with a correction (a reversal among its entries). */
    const correctedTimesheet = () =>
      live.h.one<{ id: string }>(
        `SELECT timesheet_id AS id FROM time_entries WHERE workspace_id = ? AND kind = 'reversal'
         GROUP BY timesheet_id ORDER BY timesheet_id LIMIT 1`,
        WS,
      );
    async function signedIn(token: string, width = 1200): Promise<Page> {
      const page = await live.browser.newPage();
      await page.setViewportSize({ width, height: 800 });
      await signedInAlready(page, live.base, token);
      return page;
    }
    const cardsOf = (page: Page) =>
      page.$$eval('.record-cards a.card', (cards) =>
        cards.map((c) => ({
          list: c.getAttribute('data-list'),
          href: c.getAttribute('href'),
          title: c.querySelector('.card-title')?.textContent ?? '',
        })),
      );

    itOnOneStore('a staff home page offers all seven record lists as cards', async () => {
      const page = await signedIn(live.h.tokens.staff);
      await page.waitForSelector('.record-cards');
      const cards = await cardsOf(page);
      const { withRecords } = await listsWithRecords(live.h.tokens.staff);
      assert.equal(withRecords.length, 7, 'the API answers every list with records for staff');
      assert.deepEqual(
        cards.map((c) => c.list),
        LISTS,
      );
      for (const c of cards) assert.equal(c.href, `#/records/${c.list}`);
      assert.ok(cards.every((c) => c.title.length > 0 && !c.title.includes('_')));
    });

    it('a list pages through the API cursors with Next and First page, the cursor kept out of view', async () => {
      const page = await signedIn(live.h.tokens.staff);
      const first = await api<RecordPage>(live.h.tokens.staff, 'invoices', {
        limit: 50,
        order: 'desc',
      });
      assert.ok(first.data.nextCursor, 'the seed has a second page of invoices');
      const second = await api<RecordPage>(live.h.tokens.staff, 'invoices', {
        limit: 50,
        order: 'desc',
        cursor: first.data.nextCursor,
      });
      await open(page, '#/records/invoices', '.record-list[data-list=invoices] tbody tr');
      let table = await tableIn(page, '.record-list');
      for (const heading of ['Invoice', 'Number', 'Status', 'Period', 'Total'])
        assert.ok(table.headings.includes(heading), `heading ${heading}`);
      assert.ok(!table.headings.some((x) => /[a-z][A-Z]|_/.test(x)), 'no raw keys as headings');
      assert.deepEqual(
        table.rows.map((r) => r.id),
        first.data.items.map((i) => i.id),
      );
      assert.deepEqual(
        column(table, 'Total'),
        first.data.items.map((i) => money(i.totalCents as number, i.currency as string)),
        'every total with its own currency',
      );
      assert.ok(
        new Set(first.data.items.map((i) => i.currency)).size > 1,
        'the page holds invoices of several currencies',
      );

      await page.click('button:text("Next page")');
      await page.waitForFunction(
        (id) => document.querySelector('.record-list tbody tr')?.getAttribute('data-id') === id,
        second.data.items[0].id as string,
      );
      table = await tableIn(page, '.record-list');
      assert.equal(table.rows[0].id, second.data.items[0].id, "the API's second page first");
      assert.deepEqual(
        table.rows.map((r) => r.id),
        second.data.items.map((i) => i.id),
      );
      assert.equal(await page.evaluate(() => location.hash), '#/records/invoices');
      const shown = await page.evaluate(() => document.documentElement.outerHTML);
      assert.ok(!shown.includes(first.data.nextCursor), 'the cursor is not on the page');

      await page.click('button:text("First page")');
      await page.waitForFunction(
        (id) => document.querySelector('.record-list tbody tr')?.getAttribute('data-id') === id,
        first.data.items[0].id as string,
      );
    });

    itOnOneStore(
      'names each supplier beside its code, and downloads a list page as CSV, the headings and cells the table shows',
      async () => {
        const page = await signedIn(live.h.tokens.staff);
        const first = await api<RecordPage>(live.h.tokens.staff, 'invoices', {
          limit: 50,
          order: 'desc',
        });
        await open(page, '#/records/invoices', '.record-list[data-list=invoices] tbody tr');
        const table = await tableIn(page, '.record-list');
        // A supplier's code with its name beside it (the suppliers list's names).
        const suppliers = await api<RecordPage>(live.h.tokens.staff, 'suppliers', {
          limit: 50,
          order: 'desc',
        });
        const names = new Map(
          suppliers.data.items.map((s) => [
            (s.code as { value: string }).value,
            (s.name as { value: string }).value,
          ]),
        );
        const shown = column(table, 'Supplier');
        let named = 0;
        first.data.items.forEach((item, i) => {
          const ref = item.supplierRef as { value: string } | null;
          if (!ref) return;
          assert.equal(shown[i], `${ref.value} ${names.get(ref.value)}`);
          named++;
        });
        assert.ok(named > 0);
        const { lines } = await downloadCsv(page, '.record-list button:text("Download CSV")');
        assert.equal(
          lines.length,
          first.data.items.length + 1,
          'a line per invoice and the heading',
        );
        assert.equal(lines[0], table.headings.join(','));
        // RFC 4180: a field with a comma, quote or line break quoted, quotes doubled; text a
        // spreadsheet would read as a formula (a credit note's "-GBP 15,918.00") starts with '.
        const field = (shown: string) => {
          const text = /^[=+\-@]/.test(shown) && !/^-[\d,.]+$/.test(shown) ? `'${shown}` : shown;
          return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
        };
        table.rows.forEach((row, i) => {
          assert.equal(row.id, first.data.items[i].id);
          assert.equal(lines[i + 1], row.cells.map(field).join(','), `line ${i + 1}`);
        });
      },
    );

    it('an invoice opens with its header and every line, each amount in the invoice currency', async () => {
      const { items } = (
        await api<RecordPage>(live.h.tokens.staff, 'invoices', { limit: 50, order: 'desc' })
      ).data;
      // A non-USD invoice, so a default currency could not pass for the right one.
      const chosen = items.find((i) => i.currency !== 'USD' && i.type === 'invoice');
      assert.ok(chosen);
      const { item } = (
        await api<{ item: InvoiceItem }>(live.h.tokens.staff, 'invoices/item', { id: chosen.id })
      ).data;
      assert.equal(item.linesTruncated, false);
      assert.ok(item.lines.length > 1);
      const page = await signedIn(live.h.tokens.staff);
      await open(page, `#/invoice/${item.invoice.id}`, '.record-page tbody tr');
      assert.equal(
        await page.textContent('.invoice-total'),
        money(item.invoice.totalCents, item.invoice.currency),
      );
      assert.equal((await fieldText(page, 'Currency'))?.text, item.invoice.currency);
      const table = await tableIn(page, '.record-page .table-wrap');
      assert.deepEqual(
        table.rows.map((r) => r.id),
        item.lines.map((l) => l.id),
      );
      assert.deepEqual(
        column(table, 'Amount'),
        item.lines.map((l) => {
          assert.equal(l.currency, item.invoice.currency);
          return money(l.amountCents, item.invoice.currency);
        }),
      );
      assert.equal(await page.locator('.truncated').count(), 0);
      const sum = item.lines.reduce((s, l) => s + l.amountCents, 0);
      assert.match(
        (await page.textContent('.lines-sum')) ?? '',
        new RegExp(
          `Sum of the ${item.lines.length} lines shown: ${escape(money(sum, item.invoice.currency))}`,
        ),
      );
    });

    itOnOneStore(
      'an invoice of more than 500 lines shows 500 of N and says the total is its own, never a sum of the cut',
      async () => {
        const big = await live.h.one<{ id: string }>(
          `SELECT invoice_id AS id FROM invoice_lines WHERE workspace_id = ? GROUP BY invoice_id HAVING COUNT(*) > 500 ORDER BY invoice_id LIMIT 1`,
          WS,
        );
        const { item } = (
          await api<{ item: InvoiceItem }>(live.h.tokens.staff, 'invoices/item', { id: big.id })
        ).data;
        assert.equal(item.linesTruncated, true);
        const page = await signedIn(live.h.tokens.staff);
        await open(page, `#/invoice/${big.id}`, '.record-page tbody tr');
        assert.equal(
          await page.textContent('.truncated'),
          `Showing 500 of ${item.lineCount} lines; the invoice total is the invoice's own total, not a sum of these lines.`,
        );
        assert.equal((await tableIn(page, '.record-page .table-wrap')).rows.length, 500);
        assert.equal(await page.locator('.lines-sum').count(), 0);
        assert.equal(
          await page.textContent('.invoice-total'),
          money(item.invoice.totalCents, item.invoice.currency),
        );
        const cut = item.lines.reduce((s, l) => s + l.amountCents, 0);
        const text = (await page.textContent('main')) ?? '';
        assert.ok(!text.includes(money(cut, item.invoice.currency)), 'no sum of the 500 lines');
      },
    );

    it('a corrected timesheet marks its reversal and restatement as such, originals plain', async () => {
      const candidate = await correctedTimesheet();
      const { item } = (
        await api<{ item: TimesheetItem }>(live.h.tokens.staff, 'timesheets/item', {
          id: candidate.id,
        })
      ).data;
      const kinds = new Set(item.entries.map((e) => e.kind));
      assert.ok(kinds.has('reversal') && kinds.has('restatement') && kinds.has('original'));
      const page = await signedIn(live.h.tokens.staff);
      await open(page, `#/timesheet/${item.timesheet.id}`, '.record-page tbody tr');
      const table = await tableIn(page, '.record-page .table-wrap');
      assert.deepEqual(
        table.rows.map((r) => r.id),
        item.entries.map((e) => e.id),
      );
      const corrections = column(table, 'Correction');
      const quantities = column(table, 'Quantity');
      item.entries.forEach((entry, i) => {
        const row = table.rows[i];
        if (entry.kind === 'original') {
          assert.equal(row.className, '', `${entry.id}: an original row is plain`);
          assert.equal(corrections[i], '');
        } else {
          assert.equal(row.className, `entry-${entry.kind}`, `${entry.id} marked`);
          const label = entry.kind === 'reversal' ? 'Reversal of ' : 'Restatement of ';
          assert.equal(corrections[i], `${label}${entry.correctsEntryId}`);
        }
        if (item.timesheet.entryMode === 'hourly')
          assert.equal(quantities[i], hours(entry.quantityMinutes as number));
      });
    });

    if (dialect !== 'sqlite') return; // the roles below read the same rows on either store

    itOnOneStore(
      'without read:pii, a worker shows its name and work email as withheld, never blank',
      async () => {
        const worker = (
          await api<RecordPage>(live.h.tokens.staffNoPii, 'workers', { limit: 1, order: 'desc' })
        ).data.items[0];
        assert.ok(!('displayName' in worker) && !('workEmail' in worker), 'the API omits the keys');
        const page = await signedIn(live.h.tokens.staffNoPii);
        await open(page, `#/worker/${worker.id as string}`, '.record-page .record-fields');
        for (const label of ['Name', 'Work email'])
          assert.deepEqual(await fieldText(page, label), {
            text: WITHHELD,
            withheld: true,
            thirdParty: false,
          });
        await open(page, '#/records/workers', '.record-list tbody tr');
        const table = await tableIn(page, '.record-list');
        assert.ok(column(table, 'Name').every((name) => name === WITHHELD));

        // With read:pii, the same worker's name is there, as third-party text.
        const full = (
          await api<{ item: ApiRecord }>(live.h.tokens.staff, 'workers/item', { id: worker.id })
        ).data.item;
        const staff = await signedIn(live.h.tokens.staff);
        await open(staff, `#/worker/${worker.id as string}`, '.record-page .record-fields');
        assert.deepEqual(await fieldText(staff, 'Name'), {
          text: (full.displayName as { value: string }).value,
          withheld: false,
          thirdParty: true,
        });
      },
    );

    itOnOneStore(
      'a worker token sees cards for its own lists, only its own timesheets, and one sentence on report pages',
      async () => {
        const { withRecords, empty } = await listsWithRecords(live.h.tokens.worker);
        const page = await signedIn(live.h.tokens.worker);
        await page.waitForSelector('.record-cards');
        assert.deepEqual(
          (await cardsOf(page)).map((c) => c.list),
          withRecords.map((a) => a.list),
        );
        assert.ok(
          empty.some((a) => a.list === 'invoices'),
          'a worker reads no invoices',
        );
        assert.match((await page.textContent('.empty-lists')) ?? '', /invoices/);
        assert.equal(await page.locator('.record-cards a[data-list=invoices]').count(), 0);

        const own = (
          await api<RecordPage>(live.h.tokens.worker, 'timesheets', { limit: 50, order: 'desc' })
        ).data;
        await open(page, '#/records/timesheets', '.record-list tbody tr');
        const table = await tableIn(page, '.record-list');
        assert.deepEqual(
          table.rows.map((r) => r.id),
          own.items.map((t) => t.id),
        );
        // The worker's own id on every row, its name beside it (this token has read:pii).
        assert.ok(column(table, 'Worker').every((cell) => cell.startsWith(`${live.h.workerId} `)));

        await open(page, '#/explorer', 'main .notice');
        assert.equal(await page.textContent('main .notice'), NOT_STAFF);
        assert.doesNotMatch((await page.textContent('main')) ?? '', /403|forbidden/i);

        // A worker token without read:program (the demo's) is refused for the scope first: the
        // sentence is true of it too, and says what reports need.
        const noProgram = await createToken(
          live.h.store,
          {
            workspaceId: WS,
            role: 'worker',
            workerId: live.h.workerId,
            scopes: ['read:workforce', 'read:pii'],
          },
          new Date(),
        );
        const narrow = await signedIn(noProgram);
        await open(narrow, '#/explorer', 'main .notice');
        assert.equal(await narrow.textContent('main .notice'), NO_PROGRAM);
        await open(narrow, '#/', 'main .notice');
        assert.equal(await narrow.textContent('main .notice'), NO_PROGRAM);
      },
    );

    itOnOneStore("a billing-entity token opens its invoices and an invoice's lines", async () => {
      const mine = (
        await api<RecordPage>(live.h.tokens.billing, 'invoices', { limit: 50, order: 'desc' })
      ).data;
      assert.ok(mine.items.length > 0);
      const page = await signedIn(live.h.tokens.billing);
      await page.waitForSelector('.record-cards a[data-list=invoices]');
      assert.equal(await page.locator('.record-cards a[data-list=timesheets]').count(), 0);
      // Its supplier's records: a card for each list that answers this token with records.
      const { withRecords } = await listsWithRecords(live.h.tokens.billing);
      const cards = await page.$$eval('.record-cards a[data-list]', (links) =>
        links.map((a) => a.getAttribute('data-list')),
      );
      assert.deepEqual(
        cards,
        withRecords.map((a) => a.list),
      );
      assert.ok(cards.includes('suppliers') && cards.includes('assignments'), cards.join(', '));
      await page.click('.record-cards a[data-list=invoices]');
      await page.waitForSelector('.record-list tbody tr');
      assert.deepEqual(
        (await tableIn(page, '.record-list')).rows.map((r) => r.id),
        mine.items.map((i) => i.id),
      );
      const id = mine.items[0].id as string;
      await page.click(`.record-list a[href="#/invoice/${id}"]`);
      await page.waitForSelector(`.record-page[data-record="${id}"]`);
      const { item } = (
        await api<{ item: InvoiceItem }>(live.h.tokens.billing, 'invoices/item', { id })
      ).data;
      assert.equal(
        await page.textContent('.invoice-total'),
        money(item.invoice.totalCents, item.invoice.currency),
      );
      assert.deepEqual(
        (await tableIn(page, '.record-page .table-wrap')).rows.map((r) => r.id),
        item.lines.map((l) => l.id),
      );
    });

    itOnOneStore(
      'fits a phone: tables scroll in their own labelled region, names stay third-party text',
      async () => {
        const page = await signedIn(live.h.tokens.staff, 375);
        for (const [hash, drawn] of [
          ['#/records/suppliers', '.record-list tbody tr'],
          ['#/records/invoices', '.record-list tbody tr'],
          [`#/timesheet/${(await correctedTimesheet()).id}`, '.record-page tbody tr'],
        ]) {
          await open(page, hash, drawn);
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(width <= 375, `${hash}: no sideways scrolling of the page (${width})`);
          const region = await page.$eval('.table-wrap', (w) => ({
            role: w.getAttribute('role'),
            tabindex: w.getAttribute('tabindex'),
            label: w.getAttribute('aria-label'),
          }));
          assert.deepEqual(
            { ...region, label: Boolean(region.label) },
            {
              role: 'region',
              tabindex: '0',
              label: true,
            },
          );
        }
        await open(page, '#/records/suppliers', '.record-list tbody tr');
        const names = await page.$$eval('.record-list td .third-party', (nodes) =>
          nodes.map((n) => ({ text: n.textContent ?? '', children: n.children.length })),
        );
        assert.ok(names.some((n) => n.text.includes('Ignore previous instructions')));
        assert.ok(
          names.every((n) => n.children === 0),
          'as text only',
        );
      },
    );
  });
}

/** A string as a literal part of a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
