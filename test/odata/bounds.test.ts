/**
 * What holds for the rest of the API holds for the OData feed (DESIGN §4.18): the quota, the
 * bound on failed authentications per address, metrics under `odata:<Set>`; and a key given in
 * the URL is written nowhere: not in a nextLink or deltaLink, a log line, an error, the access
 * trail or /metrics. Amounts follow ISO 4217's minor units. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditTrail } from '../../src/audit/trail.js';
import { createToken } from '../../src/auth/tokens.js';
import { amountOf, minorUnitsOf } from '../../src/odata/json-writer.js';
import { pageSizeOf } from '../../src/odata/feed-headers.js';
import { shifted } from '../../src/odata/amount-sql.js';
import type { Row } from '../../src/store/store.js';
import { loadChanges } from '../support/feed.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';

describe('amounts and page sizes', () => {
  it('divides cents by the currency’s minor units (ISO 4217): JPY 0, EUR 2, KWD 3', () => {
    assert.deepEqual(
      ['JPY', 'EUR', 'USD', 'KWD', 'BHD', 'CLF'].map(minorUnitsOf),
      [0, 2, 2, 3, 3, 4],
    );
    assert.equal(amountOf(123456, 'JPY'), 123456);
    assert.equal(amountOf(123456, 'EUR'), 1234.56);
    assert.equal(amountOf(-123456, 'KWD'), -123.456);
    assert.equal(amountOf(null, 'EUR'), null);
  });

  it('shifts a number literal to a scale exactly, rounding down what it cannot hold', () => {
    const at = (text: string, scale: number) => {
      const { value, exact } = shifted(text, scale);
      return [Number(value), exact];
    };
    assert.deepEqual(at('12.345', 2), [1234, false]);
    assert.deepEqual(at('-12.345', 2), [-1235, false]);
    assert.deepEqual(at('12.345', 3), [12345, true]);
    assert.deepEqual(at('0.29', 2), [29, true]);
    assert.deepEqual(at('1e3', 2), [100000, true]);
    assert.deepEqual(at('1e-5', 2), [0, false]);
    assert.deepEqual(at('-7', 3), [-7000, true]);
  });

  it('honours Prefer: odata.maxpagesize up to 10,000, 1,000 otherwise', () => {
    assert.equal(pageSizeOf(undefined), 1000);
    assert.equal(pageSizeOf('odata.maxpagesize=250'), 250);
    assert.equal(pageSizeOf('odata.track-changes, odata.maxpagesize=50000'), 10_000);
    assert.equal(pageSizeOf('odata.maxpagesize=0'), 1000);
  });
});

for (const dialect of DIALECTS)
  describe(`the OData feed within the API's bounds (${dialect})`, () => {
    let h: Harness;
    const lines: string[] = [];
    let key: string;
    before(async () => {
      h = await startHarness({
        dialect,
        audit: true,
        metrics: true,
        quotaPerMinute: 40,
        authFailuresPerMinute: 3,
        logger: { level: 'debug', stream: { write: (line: string) => lines.push(line) } },
      });
      key = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ['read:workforce', 'read:program'], inUrl: true },
        new Date(),
      );
    });
    after(() => h?.close());

    it('writes a key given in the URL nowhere: links, logs, errors, trail, metrics', async () => {
      const page = await get(h.app, `/odata/v4/Suppliers?$select=id&api_key=${key}`, undefined, {
        prefer: 'odata.track-changes, odata.maxpagesize=2',
      });
      assert.equal(page.status, 200);
      let next: string | undefined = page.body['@odata.nextLink'];
      let last = page;
      while (next) {
        last = await get(
          h.app,
          `${next.replace('http://localhost', '')}&api_key=${key}`,
          undefined,
          { prefer: 'odata.track-changes, odata.maxpagesize=2' },
        );
        next = last.body['@odata.nextLink'];
      }
      assert.ok(last.body['@odata.deltaLink']);
      const refused = await get(
        h.app,
        `/odata/v4/Suppliers?$filter=nosuch%20eq%201&api_key=${key}`,
      );
      assert.equal(refused.status, 400);
      const metrics = await get(h.app, '/metrics');
      await (h.executor.deps.answers as AuditTrail).flushAll();
      const trail = JSON.stringify(await h.store.auditTrail().listAuditEvents({ limit: 10_000 }));
      for (const text of [page.raw, last.raw, refused.raw, metrics.raw, trail, lines.join('\n')])
        assert.ok(!text.includes(key), 'the key appears nowhere');
      assert.match(metrics.raw, /operation="odata:Suppliers"/);
    });

    it('answers 503 when the store does not answer within its time, never a hung connection', async () => {
      const store = h.store as unknown as { selectPage: (...args: unknown[]) => Promise<unknown> };
      const read = store.selectPage;
      store.selectPage = () => new Promise(() => {});
      try {
        const answer = await get(h.app, '/odata/v4/Workers?$top=1', h.tokens.staff);
        assert.equal(answer.status, 503);
        assert.equal(answer.body.error.code, 'unavailable');
      } finally {
        store.selectPage = read;
      }
    });

    it('filters amounts at each row’s currency’s scale: JPY 0, EUR 2, KWD 3', async () => {
      const [template] = await h.all<Row>(
        'SELECT * FROM invoices WHERE workspace_id = ? LIMIT 1',
        WS,
      );
      const invoice = (id: string, currency: string) => ({
        ...template,
        id,
        currency,
        total_cents: 12345,
        number: null,
        supplier_ref: null,
      });
      await loadChanges(h, [
        [
          'invoices',
          [
            invoice('inv_odata_jpy', 'JPY'),
            invoice('inv_odata_kwd', 'KWD'),
            invoice('inv_odata_eur', 'EUR'),
          ],
        ],
      ]);
      const ids = async (filter: string) =>
        (
          await get(
            h.app,
            `/odata/v4/Invoices?$select=id,total&$filter=${encodeURIComponent(`${filter} and totalCents eq 12345`)}`,
            h.tokens.staff,
          )
        ).body.value.map((v: { id: string }) => v.id);
      assert.deepEqual(await ids('total eq 12345'), ['inv_odata_jpy']);
      assert.deepEqual(await ids('total eq 12.345'), ['inv_odata_kwd']);
      assert.deepEqual(await ids('total eq 123.45'), ['inv_odata_eur']);
      assert.deepEqual(await ids('total gt 123.449 and total lt 12345'), ['inv_odata_eur']);
      assert.deepEqual((await ids('total ge 12.3451')).sort(), ['inv_odata_eur', 'inv_odata_jpy']);
      const rows = await get(
        h.app,
        `/odata/v4/Invoices('inv_odata_kwd')?$select=total`,
        h.tokens.staff,
      );
      assert.equal(rows.body.total, 12.345);
    });

    it('counts each request against the quota (429 past it)', async () => {
      const token = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ['read:workforce'] },
        new Date(),
      );
      const statuses: number[] = [];
      for (let i = 0; i < 42; i++)
        statuses.push((await get(h.app, '/odata/v4/Workers?$top=1', token)).status);
      assert.ok(statuses.slice(0, 40).every((s) => s === 200));
      assert.equal(statuses[41], 429);
    });

    it('bounds wrong keys per address, whether as Basic password, bearer or api_key', async () => {
      const wrong = `vmsr_${'x'.repeat(43)}`;
      const basic = {
        authorization: `Basic ${Buffer.from(`me:${wrong}`).toString('base64')}`,
        'x-forwarded-for': '203.0.113.9',
      };
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await get(h.app, '/odata/v4/Workers', undefined, basic)).status);
      statuses.push((await get(h.app, `/odata/v4/Workers?api_key=${wrong}`)).status);
      assert.deepEqual(statuses.slice(0, 3), [401, 401, 401]);
      assert.equal(statuses[3], 429);
      // A correct key from that address still passes (DESIGN §4.16).
      assert.equal((await get(h.app, '/odata/v4/Suppliers?$top=1', h.tokens.staff)).status, 200);
    });
  });

for (const dialect of DIALECTS)
  describe(`a key in the URL is a credential, not a request without one (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect, anonymousPerMinute: 3 });
    });
    after(() => h?.close());

    it('bounds the feed’s requests with api_key by the key’s quota, not the per-address bound', async () => {
      const key = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ['read:workforce'], inUrl: true },
        new Date(),
      );
      for (let i = 0; i < 6; i++)
        assert.equal((await get(h.app, `/odata/v4/Workers?$top=1&api_key=${key}`)).status, 200);
      const without = [];
      for (let i = 0; i < 4; i++)
        without.push((await get(h.app, '/odata/v4/Workers?$top=1')).status);
      assert.deepEqual(without, [401, 401, 401, 429]);
    });
  });
