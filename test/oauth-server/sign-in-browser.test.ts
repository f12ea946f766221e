/**
 * Signing in as people do, in Chromium (issue 32, items 3 and 4): the web page signs in with the
 * built-in authorization server and with an organisation's (an oidc-provider playing it), keeps
 * its tokens in the tab, refreshes them, revokes them at sign-out, and returns to sign-in with a
 * message when the session ends; an MCP host's sign-in and consent pages are clicked through.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  auth,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { hashToken } from '../../src/auth/tokens.js';
import { launchBrowser, skipWithoutChromium, type TestBrowser } from '../support/browser.js';
import { startHarness, WS, type Harness } from '../support/harness.js';
import { TestIdentityProvider } from '../support/identity-provider.js';
import { assertEnvelope, newClient } from '../support/mcp-client.js';
import { TestOAuthHost, TestBrowser as HttpBrowser } from '../support/oauth-browser.js';
import { tokenRequest } from '../support/oauth-flow.js';
import { assertAccessible } from '../support/accessibility.js';
import { OPERATIONS } from '../../src/operations/registry.js';

const skip = skipWithoutChromium();

/** The tab's OAuth session as the page keeps it (web/src/sign-in/oauth-session.ts). */
async function kept(page: Page) {
  return page.evaluate(() => ({
    oauth: JSON.parse(sessionStorage.getItem('vms-read-oauth') ?? 'null') as {
      accessToken: string;
      refreshToken: string | null;
      expiresAt: number;
      clientId: string;
    } | null,
    key: sessionStorage.getItem('vms-read-token'),
    local: localStorage.length,
  }));
}

/** At the built-in server's pages: the access key typed in, then Allow. */
async function signInAtServer(page: Page, key: string) {
  await page.waitForSelector('input[name=key]');
  await assertAccessible(page, "the authorization server's sign-in page");
  await page.fill('input[name=key]', key);
  await page.click('button:has-text("Sign in")');
  await page.waitForSelector('button[value=allow]');
  await assertAccessible(page, "the authorization server's consent page");
  await page.click('button[value=allow]');
}

describe('the web page signs in with the built-in authorization server', { skip }, () => {
  let h: Harness;
  let base = '';
  let browser: TestBrowser;
  before(async () => {
    h = await startHarness({ oauthServer: true });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await h.close();
  });

  it('greets a person in words for people: what signing in does, no "authorization server"', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    const card = page.locator('section.sign-in');
    assert.equal(await card.locator('h1').textContent(), 'Welcome to vms-read');
    const words = (await card.textContent()) ?? '';
    assert.match(words, /Signing in takes you to your organisation's sign-in page/);
    assert.doesNotMatch(words, /authorization server/i);
    assert.equal(await page.locator('.demo-accounts').count(), 0, 'no demo here');
    await page.close();
  });

  it('signs in through the sign-in and consent pages, keeping tokens in the tab only', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    await page.click('#sign-in-oauth');
    await signInAtServer(page, h.tokens.staff);
    await page.waitForSelector('#sign-out:not([hidden])');
    assert.equal(new URL(page.url()).search, '', 'the code is gone from the address');
    const { oauth, key, local } = await kept(page);
    assert.ok(oauth?.accessToken && oauth.refreshToken);
    assert.equal(key, null);
    assert.equal(local, 0);
    await page.goto(`${base}/app#/records/workers`);
    await page.waitForSelector('table');
  });

  it('refreshes the access token before it expires', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    await page.click('#sign-in-oauth');
    await signInAtServer(page, h.tokens.staff);
    await page.waitForSelector('#sign-out:not([hidden])');
    const before = await kept(page);
    // Thirty seconds left: the next call refreshes first.
    await page.evaluate(() => {
      const tokens = JSON.parse(sessionStorage.getItem('vms-read-oauth') as string);
      sessionStorage.setItem(
        'vms-read-oauth',
        JSON.stringify({ ...tokens, expiresAt: Date.now() + 30_000 }),
      );
    });
    await page.goto(`${base}/app#/records/suppliers`);
    await page.waitForSelector('table');
    const after = await kept(page);
    assert.notEqual(after.oauth?.accessToken, before.oauth?.accessToken);
    assert.notEqual(after.oauth?.refreshToken, before.oauth?.refreshToken, 'rotated');
  });

  it('revokes its tokens at sign-out', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    await page.click('#sign-in-oauth');
    await signInAtServer(page, h.tokens.staff);
    await page.waitForSelector('#sign-out:not([hidden])');
    const { oauth } = await kept(page);
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in-oauth');
    assert.equal((await kept(page)).oauth, null);
    const refresh = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: oauth?.refreshToken ?? '',
      client_id: oauth?.clientId ?? '',
    });
    assert.equal(refresh.body.error, 'invalid_grant');
    // The access token too, at once (DESIGN §4.16), as the page says.
    const api = await fetch(`${base}/api/v1/workers?limit=1`, {
      headers: { authorization: `Bearer ${oauth?.accessToken}` },
    });
    assert.equal(api.status, 401);
    assert.match((await page.textContent('main')) ?? '', /You are signed out/);
    assert.equal(new URL(page.url()).search, '', 'nothing of the sign-out left in the address');
    // The server's own session ended too: signing in again asks for the key.
    await page.click('#sign-in-oauth');
    await page.waitForSelector('input[name=key]');
  });

  it('returns to sign-in with a message when the key behind the session is revoked', async () => {
    const key = (await h.store.findTokenByHash(hashToken(h.tokens.staff2))) ? h.tokens.staff2 : '';
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    await page.click('#sign-in-oauth');
    await signInAtServer(page, key);
    await page.waitForSelector('#sign-out:not([hidden])');
    await h.store.revokeToken(hashToken(key), new Date().toISOString());
    await page.goto(`${base}/app#/records/workers`);
    const alert = await page.waitForSelector('[role=alert]');
    assert.match((await alert.textContent()) ?? '', /session has ended/);
  });

  it('still takes an access key ("Use an access key")', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    await page.click('summary:has-text("Use an access key")');
    await page.fill('#token', h.tokens.staff);
    await page.click('form.sign-in button[type=submit]');
    await page.waitForSelector('#sign-out:not([hidden])');
    assert.equal((await kept(page)).oauth, null);
  });

  it('lets an MCP host sign a person in (SDK v2 client, pages clicked in Chromium), refresh and step up', async () => {
    const mcp = new URL(`${base}/mcp`);
    const page = await browser.newPage();
    // The host's own callback: a page that notes where the browser arrived.
    let arrived: URL | null = null;
    const hostPage = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/callback') arrived = url; // not the favicon the browser asks for next
      response.end('back at the host');
    });
    await new Promise<void>((resolve) => hostPage.listen(0, '127.0.0.1', resolve));
    const callback = `http://127.0.0.1:${(hostPage.address() as AddressInfo).port}/callback`;
    after(() => new Promise((resolve) => hostPage.close(resolve)));
    const host = new TestOAuthHost(new HttpBrowser(), callback);
    host.redirectToAuthorization = async (url: URL) => {
      arrived = null;
      await page.goto(url.href);
      if (!arrived) {
        if (await page.$('input[name=key]')) await signInAtServer(page, h.tokens.staff);
        else {
          await page.waitForSelector('button[value=allow]');
          await page.click('button[value=allow]');
        }
        await page.waitForURL(`${callback}**`);
      }
      host.callback = arrived;
    };
    // The host first asks for workforce records only.
    assert.equal(
      await auth(host, { serverUrl: mcp, scope: 'read:workforce offline_access' }),
      'REDIRECT',
    );
    const first = host.takeCallback();
    assert.equal(
      await auth(host, {
        serverUrl: mcp,
        authorizationCode: first.get('code') ?? '',
        iss: first.get('iss') ?? undefined,
      }),
      'AUTHORIZED',
    );
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: host }));
    try {
      assert.equal((await client.listTools()).tools.length, OPERATIONS.length);
      const viaOAuth = assertEnvelope(
        (await client.callTool({
          name: 'list_workers',
          arguments: { limit: 3 },
        })) as CallToolResult,
      );
      const keyClient = newClient();
      await keyClient.connect(
        new StreamableHTTPClientTransport(mcp, {
          // A key without read:pii, as the host asked for none: the same fields.
          requestInit: { headers: { authorization: `Bearer ${h.tokens.staffNoPii}` } },
        }),
      );
      const viaKey = assertEnvelope(
        (await keyClient.callTool({
          name: 'list_workers',
          arguments: { limit: 3 },
        })) as CallToolResult,
      );
      await keyClient.close();
      assert.deepEqual(viaOAuth.items, viaKey.items);
      // A spoiled access token: the SDK refreshes with its refresh token and calls again.
      const stored = host.tokens();
      host.saveTokens({ ...stored!, access_token: 'spoiled' });
      assertEnvelope(
        (await client.callTool({
          name: 'list_workers',
          arguments: { limit: 1 },
        })) as CallToolResult,
      );
      assert.notEqual(host.tokens()?.access_token, 'spoiled');
      assert.notEqual(host.tokens()?.refresh_token, stored?.refresh_token, 'rotated');
      // Invoices need read:financial: a 403 step-up, the consent page again, then the call.
      await assert.rejects(
        client.callTool({ name: 'list_invoices', arguments: { limit: 1 } }),
        UnauthorizedError,
      );
      const stepUp = new StreamableHTTPClientTransport(mcp, { authProvider: host });
      await stepUp.finishAuth(host.takeCallback());
      const retried = newClient();
      await retried.connect(stepUp);
      const invoices = assertEnvelope(
        (await retried.callTool({
          name: 'list_invoices',
          arguments: { limit: 1 },
        })) as CallToolResult,
      );
      assert.equal((invoices.items as unknown[]).length, 1);
      await retried.close();
    } finally {
      await client.close();
    }
  });
});

describe("the web page signs in with an organisation's authorization server", { skip }, () => {
  let h: Harness;
  let idp: TestIdentityProvider;
  let base = '';
  let browser: TestBrowser;
  before(async () => {
    idp = await TestIdentityProvider.start({
      resources: () => (base ? [base, `${base}/mcp`] : []),
      claims: (subject) => (subject === 'person-7' ? { vms_workspace: WS, vms_role: 'staff' } : {}),
      publicClients: () => (base ? [{ clientId: 'vms-web', redirectUris: [`${base}/app`] }] : []),
    });
    h = await startHarness({
      oauthIssuers: [idp.entry],
      webSignIn: { issuer: idp.issuer, clientId: 'vms-web' },
    });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    idp.reconfigure();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await h.close();
    await idp.close();
  });

  it('signs in there and reads records with its token', async () => {
    idp.signInAs('person-7');
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    await page.click('#sign-in-oauth');
    await page.waitForSelector('#sign-out:not([hidden])');
    const { oauth } = await kept(page);
    const claims = JSON.parse(
      Buffer.from(oauth!.accessToken.split('.')[1], 'base64url').toString(),
    );
    assert.equal(claims.iss, idp.issuer);
    assert.equal(claims.sub, 'person-7');
    await page.goto(`${base}/app#/records/workers`);
    await page.waitForSelector('table');
  });
});

describe('the page of a demo names the accounts its sign-in page offers', { skip }, () => {
  it('says they are one click away, by their labels', async () => {
    const h = await startHarness({
      oauthServer: true,
      demoAccounts: [
        { name: 'staff', label: 'Staff, every scope' },
        { name: 'worker', label: 'A worker' },
      ],
    });
    const browser = await launchBrowser();
    try {
      const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
      const page = await browser.newPage();
      await page.goto(`${base}/app`);
      assert.equal(
        await page.locator('.demo-accounts').textContent(),
        'This is a demo: its sign-in page offers its accounts one click each, no key to type (Staff, every scope; A worker).',
      );
      await assertAccessible(page, "a demo's sign-in card");
    } finally {
      await browser.close();
      await h.close();
    }
  });
});
