/**
 * The requests Power Query's OData connector sends (Excel "From OData Feed", Power BI Desktop and
 * the service's refresh), replayed byte for byte with its headers: the service document and
 * $metadata it reads first, then what it folds: Table.FirstN into $top, a row filter into $filter
 * (Text.Contains under not included), a column choice into $select, a navigation into a key
 * path and $expand, and the Web API key it appends as api_key to every request, nextLinks too.
 * Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createToken } from '../../src/auth/tokens.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';

/** The headers Power Query sends with every OData v4 request. */
const POWER_QUERY = {
  accept:
    'application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9,application/atomsvc+xml;q=0.8,application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7',
  'odata-maxversion': '4.0',
  'odata-version': '4.0',
  'user-agent': 'Microsoft.Data.Mashup (https://go.microsoft.com/fwlink/?LinkID=304225)',
};
const METADATA_ACCEPT = { ...POWER_QUERY, accept: 'application/xml' };

const plain = (value: unknown) =>
  value !== null && typeof value === 'object' && 'value' in value
    ? (value as { value: unknown }).value
    : value;

for (const dialect of DIALECTS)
  describe(`Power Query's requests, replayed (${dialect})`, () => {
    let h: Harness;
    let key: string;
    const pq = (url: string, headers = POWER_QUERY) => get(h.app, url, h.tokens.staff, headers);
    before(async () => {
      h = await startHarness({ dialect });
      key = await createToken(
        h.store,
        {
          workspaceId: WS,
          role: 'staff',
          scopes: ['read:financial', 'read:workforce'],
          inUrl: true,
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
        new Date(),
      );
    });
    after(() => h?.close());

    it('reads the service document, then $metadata as XML', async () => {
      const service = await pq('/odata/v4/');
      assert.equal(service.status, 200);
      assert.equal(service.headers['odata-version'], '4.0');
      const metadata = await pq('/odata/v4/$metadata', METADATA_ACCEPT);
      assert.equal(metadata.status, 200);
      assert.match(String(metadata.headers['content-type']), /^application\/xml/);
    });

    it('Table.FirstN(Workers, 100): /odata/v4/Workers?$top=100', async () => {
      const answer = await pq('/odata/v4/Workers?$top=100');
      const rest = (await get(h.app, '/api/v1/workers?limit=50', h.tokens.staff)).body.data.items;
      assert.equal(answer.status, 200);
      assert.deepEqual(
        answer.body.value.slice(0, 50).map((w: { id: string }) => w.id),
        rest.map((w: { id: string }) => w.id),
      );
    });

    it('a row filter, Text.Contains under not included', async () => {
      const rest = (await get(h.app, '/api/v1/invoices?limit=50&status=issued', h.tokens.staff))
        .body.data.items;
      const issued = await pq("/odata/v4/Invoices?$filter=status%20eq%20'issued'&$top=50");
      assert.deepEqual(
        issued.body.value.map((i: { id: string }) => i.id),
        rest.map((i: { id: string }) => i.id),
      );
      const notContains = await pq(
        '/odata/v4/Invoices?$filter=not%20contains(groupKey,%27USD%27)%20and%20periodStart%20ge%202024-01-01',
      );
      assert.equal(notContains.status, 200, notContains.raw);
      assert.ok(notContains.body.value.length > 0);
      for (const invoice of notContains.body.value) {
        assert.ok(!invoice.groupKey.includes('USD'));
        assert.ok(invoice.periodStart >= '2024-01-01');
      }
      const since = await pq(
        '/odata/v4/Workers?$filter=createdAt%20gt%202024-01-01T00:00:00Z%20and%20workEmail%20ne%20null&$top=10',
      );
      assert.equal(since.status, 200, since.raw);
      for (const worker of since.body.value)
        assert.ok(worker.createdAt > '2024-01-01T00:00:00.000Z' && worker.workEmail !== null);
      const onBehalf = await pq(
        '/odata/v4/TimeEntries?$filter=capturedOnBehalf%20eq%20true&$top=5',
      );
      assert.ok(
        onBehalf.body.value.length > 0 &&
          onBehalf.body.value.every((e: { capturedOnBehalf: boolean }) => e.capturedOnBehalf),
      );
    });

    it('a column choice: $select', async () => {
      const answer = await pq('/odata/v4/Invoices?$select=id,status,total,currency&$top=3');
      assert.equal(answer.status, 200);
      for (const invoice of answer.body.value)
        assert.deepEqual(Object.keys(invoice), ['id', 'status', 'currency', 'total']);
    });

    it('a navigation: a record’s Lines by key path and by $expand', async () => {
      const [invoice] = (await get(h.app, '/api/v1/invoices?limit=1', h.tokens.staff)).body.data
        .items;
      const rest = (await get(h.app, `/api/v1/invoices/item?id=${invoice.id}`, h.tokens.staff)).body
        .data.item;
      const byPath = await pq(`/odata/v4/Invoices('${invoice.id}')/Lines`);
      assert.equal(byPath.status, 200);
      assert.deepEqual(
        byPath.body.value.map((l: { id: string }) => l.id).slice(0, 500),
        rest.lines.map((l: { id: string }) => l.id),
      );
      const expanded = await pq(
        `/odata/v4/Invoices?$top=1&$expand=Lines($select=id,description,amount)`,
      );
      assert.deepEqual(
        expanded.body.value[0].Lines.map((l: { description: string }) => l.description).slice(
          0,
          500,
        ),
        rest.lines.map((l: { description: unknown }) => plain(l.description)),
      );
    });

    it('the Web API key in api_key, appended again to each nextLink, never echoed', async () => {
      const first = await get(
        h.app,
        `/odata/v4/TimeEntries?$select=id&api_key=${key}`,
        undefined,
        POWER_QUERY,
      );
      assert.equal(first.status, 200);
      const next = String(first.body['@odata.nextLink']);
      assert.ok(next.startsWith('http://localhost/odata/v4/TimeEntries?'));
      assert.doesNotMatch(first.raw, new RegExp(key));
      const second = await get(
        h.app,
        `${next.replace('http://localhost', '')}&api_key=${key}`,
        undefined,
        POWER_QUERY,
      );
      assert.equal(second.status, 200);
      assert.notDeepEqual(second.body.value[0], first.body.value[0]);
    });
  });
