import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { signedInAlready, skipWithoutChromium } from '../support/browser.js';
import type { Harness } from '../support/harness.js';
import { livePages, open } from './record-pages.js';

/**
 * The page never calls an operation its token's role and scopes refuse (DESIGN §4.17, issue 57):
 * signed in with a staff key without read:audit (or without read:pii, or with read:program
 * alone), a worker's or a billing entity's key, every view the page offers and the report and
 * trail addresses typed in draw with no answer of 400 or more and no console error; the report
 * and trail pages say in a sentence why there is nothing. In Chromium, those sentences audited.
 */
type Who = keyof Pick<
  Harness['tokens'],
  'staff2' | 'staffNoPii' | 'programOnly' | 'worker' | 'billing'
>;
const TOKENS: Who[] = ['staff2', 'staffNoPii', 'programOnly', 'worker', 'billing'];

describe('the page asks nothing its token is refused (sqlite)', { skip: skipWithoutChromium() }, () => {
  const live = livePages('sqlite', { audit: true });

  /** A page that keeps every console error and every refused API answer. */
  async function watched(token: string): Promise<{ page: Page; problems: string[] }> {
    const page = await live.browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('response', (response) => {
      if (response.url().includes('/api/') && response.status() >= 400)
        problems.push(`${response.status()} ${response.url()}`);
    });
    await signedInAlready(page, live.base, token);
    return { page, problems };
  }

  for (const who of TOKENS)
    it(`${who}: every view, no refusal and no console error`, async () => {
      const { page, problems } = await watched(live.h.tokens[who]);
      const cards = await page.$$eval('main a.card[href^="#/"]', (links) =>
        links.map((a) => a.getAttribute('href') as string),
      );
      const views = [
        ...new Set([
          ...cards,
          '#/records',
          '#/explorer',
          '#/dashboard/program-operations',
          '#/access-trail',
          `#/worker/${live.h.workerId}`,
        ]),
      ];
      // Audited once below: the other tests audit these views (an audit costs a second or more).
      for (const hash of views) {
        // Once the page has taken the new address (it shows "Loading…" at once), until drawn.
        await page.evaluate(
          (to) =>
            new Promise((taken) => {
              addEventListener('hashchange', () => setTimeout(taken, 0), { once: true });
              location.hash = to;
            }),
          hash,
        );
        await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0);
      }
      assert.deepEqual(problems, [], views.join(' '));
      await open(page, '#/access-trail', 'main .notice');
      assert.match(
        (await page.textContent('main .notice')) ?? '',
        /for staff tokens holding the read:audit scope/,
      );
      if (who === 'worker' || who === 'billing') {
        await open(page, '#/explorer', 'main .notice');
        assert.match((await page.textContent('main .notice')) ?? '', /^Reports are for staff/);
      }
      assert.deepEqual(problems, []);
      await page.close();
    });
});
