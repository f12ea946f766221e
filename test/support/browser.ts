import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { assertAccessible } from './accessibility.js';
import { DIALECTS, type Dialect } from './test-databases.js';

/**
 * A real browser for tests that need one (CORS, web pages): Chromium's headless shell, Debian's
 * `chromium-headless-shell` package (the same Blink and V8 as `chromium`, without the desktop
 * browser around them: what Playwright itself runs for headless tests), driven by
 * `playwright-core` (the driver alone, no downloaded browser: the machines have no internet).
 * `.ci/run` installs the package. The browser tests took half the CPU the full `chromium` took
 * (docs/performance.md, "The suite's time"); VMS_READ_TEST_CHROMIUM=/usr/bin/chromium runs them
 * in that one instead.
 */
export const CHROMIUM = process.env.VMS_READ_TEST_CHROMIUM ?? '/usr/bin/chromium-headless-shell';

const ci = process.env.CI === 'true' || process.env.CI === '1';

/**
 * The `skip` option of a suite needing the browser: skipped with one line where Chromium is not
 * installed, never in CI (there, the suite runs and fails loudly if it is missing).
 */
export function skipWithoutChromium(): string | false {
  return (
    !existsSync(CHROMIUM) &&
    !ci &&
    `Chromium not installed at ${CHROMIUM}: apt-get install chromium-headless-shell (CI installs it)`
  );
}

/**
 * `it` for a browser test of what the page does with the API's answers (its controls, layout,
 * CSV, sign-in and session end), in a suite run once per store: registered in the first store's
 * suite only. The page reads either store through the same API, whose answers the HTTP suites
 * hold alike on both; a suite's tests of what a store reads (lists paged, a report's tiles, a
 * search) stay `it` and run on every store (docs/web.md, "Tests").
 */
export function onOneStore(dialect: Dialect): (name: string, test: () => Promise<void>) => void {
  return (name, test) => {
    if (dialect === DIALECTS[0]) it(name, test);
  };
}

/** Headless, no sandbox (containers), and nothing that reaches the network on its own. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  /** A new page in a context of its own (no cache or cookies shared with other pages). */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile (Playwright makes a temporary one and deletes it). */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return {
    newPage: async () => (await browser.newContext()).newPage(),
    close: () => browser.close(),
  };
}

export interface PageServer {
  /** `http://127.0.0.1:<port>`: the origin the page runs on (127.0.0.1 and localhost differ). */
  origin: string;
  close(): Promise<void>;
}

/** Serves one HTML page at every path on 127.0.0.1 (`port` 0: a free one), as a web app would. */
export async function servePage(html: string, port = 0): Promise<PageServer> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Signs in to the web page (served by `base`) with a token, as a person does: the token pasted
 * into the form ("Use an access key" opened first where the page signs in at an authorization
 * server) and submitted; resolves once the page shows the signed-in header.
 */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/app`);
  await page.waitForSelector('#token', { state: 'attached' });
  await assertAccessible(page, 'the sign-in card');
  // Where the page signs people in at an authorization server, the key is folded under it.
  const folded = await page.$('details.use-key:not([open]) summary');
  if (folded) await folded.click();
  await page.fill('#token', token);
  await page.click('form.sign-in button[type=submit]');
  await signedInShown(page);
}

/** Resolves once the page shows the signed-in header and has loaded what it shows, audited. */
async function signedInShown(page: Page): Promise<void> {
  await page.waitForSelector('#sign-out:not([hidden])');
  await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0);
  await assertAccessible(page, 'the page signed in');
}

/**
 * The page (served by `base`) signed in with `token` as a tab is once a person has signed in: the
 * key already where the page keeps it (sessionStorage, the tab's own) before the page loads,
 * put there once (a sign-out in the test stays signed out). For tests of what comes after the
 * sign-in: typing the key (`signIn`) drew and audited the same sign-in card and home page for
 * every test, about a second and a half of both cores each. Opens `hash` (the home page by
 * default, then resolving as `signIn` does, audited) as a link followed in that tab does.
 */
export async function signedInAlready(
  page: Page,
  base: string,
  token: string,
  hash = '',
): Promise<void> {
  await page.addInitScript((key) => {
    if (sessionStorage.getItem('vms-read-test-signed-in') !== null) return;
    sessionStorage.setItem('vms-read-test-signed-in', 'yes');
    sessionStorage.setItem('vms-read-token', key);
  }, token);
  await page.goto(`${base}/app${hash}`);
  if (hash === '') await signedInShown(page);
  else await page.waitForSelector('#sign-out:not([hidden])');
}
