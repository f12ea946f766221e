import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { AuditTrail } from '../../src/audit/trail.js';
import { assertAccessible } from '../support/accessibility.js';
import { signedInAlready, skipWithoutChromium } from '../support/browser.js';
import { personWith } from '../support/oauth-browser.js';
import { registerClient, signIn as signInApp } from '../support/oauth-flow.js';
import { column, livePages, open, tableIn } from './record-pages.js';

/**
 * The page's access trail (DESIGN §4.17, issue 46), in headless Chromium: a staff token holding
 * read:audit finds it on the home page, filters it (a worker by name, an app, an operation, the
 * days answered), reads each event's caller and app in words and its records as links, and opens
 * "Who saw this worker" from a worker's page; what it shows is the API's own answer to the same
 * filters. A token without the scope, or of another role, is offered none of it. Every state is
 * audited for accessibility, at 1280 and 375 px.
 *
 * On SQLite only: the page is a client of the API like any other, and the API's filters over
 * both stores are test/audit/trail.test.ts's (the browser's minutes are spent once).
 */
interface TrailPage {
  items: { requestId: string }[];
}

for (const dialect of ['sqlite'] as const) {
  describe(`the page's access trail (${dialect})`, { skip: skipWithoutChromium() }, () => {
    const live = livePages(dialect, { audit: true, oauthServer: true });
    const flush = () => (live.h.executor.deps.answers as AuditTrail).flush();

    async function api(path: string, token = live.h.tokens.staff) {
      const response = await fetch(`${live.base}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as { data: unknown } };
    }
    async function trail(query: Record<string, string>): Promise<string[]> {
      await flush();
      const url = `/api/v1/audit-events?${new URLSearchParams({ limit: '50', ...query })}`;
      const { status, body } = await api(url);
      assert.equal(status, 200);
      return (body.data as TrailPage).items.map((e) => e.requestId);
    }
    async function signedIn(token: string, width = 1280): Promise<Page> {
      const page = await live.browser.newPage();
      await page.setViewportSize({ width, height: 900 });
      await signedInAlready(page, live.base, token);
      return page;
    }
    /** Request ids the page shows, once the list of `hash` is drawn. */
    async function shown(page: Page): Promise<string[]> {
      return page.$$eval('.record-list tbody tr', (rows) =>
        rows.map((r) => r.getAttribute('data-id') ?? ''),
      );
    }
    const drawn = (hash: string) => `.record-list[data-address="${hash}"] .list-body > *`;

    it('offers the trail on the home page and shows who read a worker, through which app', async () => {
      const worker = live.h.workerId;
      // Reads by an access key and by an app signed in through the built-in server.
      const byKey = await fetch(`${live.base}/api/v1/workers/item?id=${worker}`, {
        headers: { authorization: `Bearer ${live.h.tokens.staff}` },
      });
      const keyRequest = String(byKey.headers.get('x-request-id'));
      const client = await registerClient(live.base, { client_name: 'Claude <b>bold</b>' });
      const { tokens } = await signInApp(live.base, personWith({ key: live.h.tokens.staff }), {
        client,
      });
      const byApp = await fetch(`${live.base}/api/v1/timesheets?workerId=${worker}&limit=3`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(byApp.status, 200);
      const appRequest = String(byApp.headers.get('x-request-id'));
      await flush();

      const page = await signedIn(live.h.tokens.staff);
      await page.click('a.card[data-list="access-trail"]');
      await page.waitForSelector(drawn('#/access-trail'));
      await assertAccessible(page, 'the access trail');

      // From the worker's page: "Who saw this worker".
      await open(page, `#/worker/${worker}`, '.who-saw a');
      await page.click('.who-saw a');
      const hash = `#/access-trail?worker=${worker}`;
      await page.waitForSelector(drawn(hash));
      await assertAccessible(page, 'who saw this worker');
      const ids = await shown(page);
      assert.ok(ids.includes(keyRequest) && ids.includes(appRequest), ids.join(' '));
      // The API's answer to the same filter, asked after the page: the page shows its newest part.
      const answered = await trail({ worker });
      assert.deepEqual(
        ids.filter((id) => !answered.includes(id)),
        [],
        'every event shown is in the API’s answer',
      );
      const heading = (await page.textContent('.record-list h1')) ?? '';
      assert.match(heading, new RegExp(`^Who saw worker ${worker} \\S`), heading);

      const table = await tableIn(page, '.record-list');
      const row = (id: string) => table.rows.find((r) => r.id === id)?.cells ?? [];
      const at = (heading: string) => table.headings.indexOf(heading);
      assert.match(row(keyRequest)[at('Caller')], /^Staff access key tok_/);
      // The user agent under the app (Node's fetch says "node").
      assert.equal(row(keyRequest)[at('App')], 'no app (an access key)node');
      assert.equal(row(keyRequest)[at('Operation')], 'get worker');
      assert.equal(row(keyRequest)[at('Personal data')], 'yes, 1 record');
      assert.match(row(keyRequest)[at('Records revealed')], new RegExp(`^worker ${worker}`));
      assert.match(row(appRequest)[at('Caller')], /^Staff, signed in with key tok_/);
      // The app's name is its own text, shown as text (never markup), with its id beside it.
      assert.ok(row(appRequest)[at('App')].startsWith(`Claude <b>bold</b> ${client.client_id}`));
      assert.equal(await page.$$eval('.record-list td b', (b) => b.length), 0);
      assert.equal(row(appRequest)[at('Personal data')], 'no');
      // Its timesheets are links to their pages.
      const links = await page.$$eval(`.record-list tr[data-id="${appRequest}"] .revealed a`, (a) =>
        a.map((l) => l.getAttribute('href')),
      );
      assert.equal(links.length, 3);
      assert.ok(links.every((href) => href?.startsWith('#/timesheet/')));

      // The app's id opens the trail of that app alone.
      await page.click(`.record-list tr[data-id="${appRequest}"] a[data-client]`);
      const appHash = `#/access-trail?client=${client.client_id}`;
      await page.waitForSelector(drawn(appHash));
      assert.deepEqual(await shown(page), await trail({ client: client.client_id }));
      await page.close();
    });

    it('filters by operation and by the days answered, as the API does', async () => {
      const page = await signedIn(live.h.tokens.staff);
      await open(page, `#/worker/${live.h.workerId}`, '.record-page');
      // The day of the newest get_worker (events are stamped by the server's clock).
      await flush();
      const newest = await api('/api/v1/audit-events?operation=get_worker&limit=1');
      const today = (newest.body.data as { items: { at: string }[] }).items[0].at.slice(0, 10);
      await open(page, '#/access-trail', drawn('#/access-trail'));
      await page.selectOption('select[name$=operation]', 'get_worker');
      await page.fill('input[name$=from]', today);
      await page.fill('input[name$=to]', today);
      await page.click('.list-search button[type=submit]');
      const hash = `#/access-trail?operation=get_worker&since=${today}&until=${today}`;
      await page.waitForSelector(drawn(hash));
      await assertAccessible(page, 'the trail searched');
      const operations = column(await tableIn(page, '.record-list'), 'Operation');
      assert.ok(operations.length > 0);
      assert.ok(
        operations.every((o) => o === 'get worker'),
        operations.join(', '),
      );
      const day = Date.parse(`${today}T00:00:00Z`);
      assert.deepEqual(
        await shown(page),
        await trail({
          operation: 'get_worker',
          since: new Date(day).toISOString(),
          until: new Date(day + 86_400_000).toISOString(),
        }),
      );
      // The day after: nothing, and the page says so in words.
      const next = new Date(day + 86_400_000).toISOString().slice(0, 10);
      await open(page, `#/access-trail?since=${next}`, drawn(`#/access-trail?since=${next}`));
      assert.match((await page.textContent('.list-body')) ?? '', /No events visible to this token/);
      await page.close();
    });

    it('fits a phone: no sideways scrolling of the page', async () => {
      const page = await signedIn(live.h.tokens.staff, 375);
      await open(page, '#/access-trail', drawn('#/access-trail'));
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.equal(overflow, 0);
      await page.close();
    });

    for (const who of ['staff2', 'worker'] as const)
      it(`offers nothing of it to a ${who === 'staff2' ? 'staff token without read:audit' : 'worker’s token'}`, async () => {
        const page = await signedIn(live.h.tokens[who]);
        assert.equal(await page.$('a.card[data-list="access-trail"]'), null);
        const worker = live.h.workerId;
        await open(page, `#/worker/${worker}`, '.record-page');
        assert.equal(await page.$('.who-saw'), null);
        await open(page, '#/access-trail', 'main .notice');
        assert.match(
          (await page.textContent('main .notice')) ?? '',
          /for staff tokens holding the read:audit scope/,
        );
        await page.close();
      });
  });
}
