/**
 * The OData feed (DESIGN §4.18): service document, $metadata (XML valid against OASIS's schemas,
 * JSON equal to OASIS's conversion of it), the resource sets against REST's lists, paging by
 * nextLink, the three ways of giving a key, errors, the PII rule and the access trail; each on
 * both stores.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createToken } from '../../src/auth/tokens.js';
import type { AuditEvent } from '../../src/audit/event.js';
import type { AuditTrail } from '../../src/audit/trail.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';

const FEED = '/odata/v4';
const schemas = dirname(createRequire(import.meta.url).resolve('odata-csdl/schemas/edmx.xsd'));

/** Every entity of a set through its nextLinks, and how many pages it took. */
async function readFeed(
  h: Harness,
  url: string,
  token: string,
  headers: Record<string, string> = {},
) {
  const values: Record<string, unknown>[] = [];
  let next: string | undefined = `${FEED}/${url}`;
  let pages = 0;
  while (next) {
    const answer = await get(h.app, next.replace('http://localhost', ''), token, headers);
    assert.equal(answer.status, 200, answer.raw);
    values.push(...answer.body.value);
    next = answer.body['@odata.nextLink'];
    pages++;
  }
  return { values, pages };
}

/** Every record of a REST list, page by page. */
async function readAllPages(h: Harness['app'], path: string, token: string) {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const answer = await get(h, `${path}?limit=50${cursor ? `&cursor=${cursor}` : ''}`, token);
    assert.equal(answer.status, 200, answer.raw);
    items.push(...answer.body.data.items);
    cursor = answer.body.data.nextCursor;
  } while (cursor);
  return items;
}

/** The access-trail events of a request id, once written. */
async function eventsOf(h: Harness, requestId: string): Promise<AuditEvent[]> {
  await (h.executor.deps.answers as AuditTrail).flushAll();
  const stored = await h.store.auditTrail().listAuditEvents({ limit: 10_000 });
  return stored
    .map((s) => JSON.parse(s.event) as AuditEvent)
    .filter((e) => e.requestId === requestId);
}

/** REST's record with its envelopes' text as plain strings: what OData serves. */
function plain(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [
      k,
      v !== null && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v,
    ]),
  );
}

/** OData's entity without the amounts beside cents: what REST serves. */
function withoutAmounts(entity: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entity).filter(([k]) => !(`${k}Cents` in entity)));
}

for (const dialect of DIALECTS)
  describe(`the OData feed (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect, audit: true });
    });
    after(() => h?.close());

    it('serves a service document naming the sets the token may read', async () => {
      const all = await get(h.app, `${FEED}/`, h.tokens.staff);
      assert.equal(all.status, 200);
      assert.equal(all.headers['odata-version'], '4.0');
      assert.equal(all.body['@odata.context'], 'http://localhost/odata/v4/$metadata');
      assert.deepEqual(
        all.body.value
          .map((s: { name: string }) => s.name)
          .filter((n: string) => !/^(Metrics|SavedQuery_)/.test(n)),
        [
          'Workers',
          'Suppliers',
          'Assignments',
          'Timesheets',
          'TimeEntries',
          'Expenses',
          'Invoices',
          'InvoiceLines',
          'ApprovalStatuses',
        ],
      );
      const workforce = await get(h.app, `${FEED}/`, h.tokens.workforceOnly);
      assert.deepEqual(
        workforce.body.value.map((s: { name: string }) => s.name),
        ['Workers', 'Assignments', 'Timesheets', 'TimeEntries', 'ApprovalStatuses'],
      );
      const v401 = await get(h.app, `${FEED}/`, h.tokens.staff, { 'odata-maxversion': '4.01' });
      assert.equal(v401.headers['odata-version'], '4.01');
    });

    it('serves $metadata as CSDL XML that validates against OASIS edmx.xsd, and as CSDL JSON', async () => {
      const xml = await get(h.app, `${FEED}/$metadata`, h.tokens.staff);
      assert.equal(xml.status, 200);
      assert.match(String(xml.headers['content-type']), /^application\/xml/);
      const dir = mkdtempSync(join(tmpdir(), 'odata-metadata-'));
      const file = join(dir, 'metadata.xml');
      writeFileSync(file, xml.raw);
      // xmllint (libxml2-utils) against the schemas OASIS publishes, as the odata-csdl package ships them.
      execFileSync('xmllint', ['--noout', '--schema', join(schemas, 'edmx.xsd'), file], {
        stdio: 'pipe',
      });
      const json = await get(h.app, `${FEED}/$metadata?$format=json`, h.tokens.staff);
      assert.equal(json.status, 200);
      const { xml2json } = createRequire(import.meta.url)('odata-csdl');
      assert.deepEqual(json.body, xml2json(xml.raw, { annotations: true }));
      const byAccept = await get(h.app, `${FEED}/$metadata`, h.tokens.staff, {
        accept: 'application/json',
      });
      assert.deepEqual(byAccept.body, json.body);
      // Entity types come from the record definitions: every REST field, amounts beside cents.
      assert.equal(json.body.VmsRead.Invoice.total.$Type, 'Edm.Decimal');
      assert.equal(json.body.VmsRead.Invoice.totalCents.$Type, 'Edm.Int64');
      assert.equal(json.body.VmsRead.Worker.displayName['@VmsRead.Provenance'], true);
      assert.equal(json.body.VmsRead.Worker.createdAt.$Type, 'Edm.DateTimeOffset');
    });

    it('leaves displayName and workEmail out of $metadata and rows without read:pii', async () => {
      const meta = await get(h.app, `${FEED}/$metadata?$format=json`, h.tokens.staffNoPii);
      assert.equal('displayName' in meta.body.VmsRead.Worker, false);
      assert.equal('workEmail' in meta.body.VmsRead.Worker, false);
      const rows = await get(h.app, `${FEED}/Workers?$top=3`, h.tokens.staffNoPii);
      for (const row of rows.body.value) {
        assert.equal('displayName' in row, false);
        assert.equal('workEmail' in row, false);
      }
      const asked = await get(h.app, `${FEED}/Workers?$select=displayName`, h.tokens.staffNoPii);
      assert.equal(asked.status, 400);
      assert.equal(asked.body.error.target, '$select');
    });

    for (const [set, path, token] of [
      ['Workers', '/api/v1/workers', 'staff'],
      ['Invoices', '/api/v1/invoices', 'billing'],
      ['Timesheets', '/api/v1/timesheets', 'worker'],
      ['Suppliers', '/api/v1/suppliers', 'worker'],
    ] as const)
      it(`reads ${set} to its end through nextLinks: REST's records for the ${token} token, each once`, async () => {
        const rest = await readAllPages(h.app, path, h.tokens[token]);
        const feed = await readFeed(h, set, h.tokens[token], { prefer: 'odata.maxpagesize=7' });
        assert.deepEqual(feed.values.map(withoutAmounts), rest.map(plain));
        assert.equal(feed.pages, Math.max(1, Math.ceil(rest.length / 7)));
      });

    it('serves time entries and invoice lines as sets: a timesheet’s entries are get_timesheet’s, untruncated', async () => {
      const [big] = await h.all<{ timesheet_id: string; n: number }>(
        'SELECT timesheet_id, COUNT(*) AS n FROM time_entries WHERE workspace_id = ? GROUP BY timesheet_id ORDER BY COUNT(*) DESC LIMIT 1',
        WS,
      );
      assert.ok(Number(big.n) > 1000);
      const entries = await readFeed(
        h,
        `Timesheets('${big.timesheet_id}')/Entries?$select=id`,
        h.tokens.staff,
      );
      assert.equal(entries.values.length, Number(big.n));
      const rest = await get(
        h.app,
        `/api/v1/timesheets/item?id=${big.timesheet_id}`,
        h.tokens.staff,
      );
      assert.deepEqual(
        entries.values.slice(0, 1000).map((e) => e.id),
        rest.body.data.item.entries.map((e: { id: string }) => e.id),
      );
      const count = await get(
        h.app,
        `${FEED}/Timesheets('${big.timesheet_id}')/Entries/$count`,
        h.tokens.staff,
      );
      assert.equal(count.raw, String(big.n));
      // A billing entity's time entries, like its timesheets, are none.
      const billing = await get(h.app, `${FEED}/TimeEntries?$top=5`, h.tokens.billing);
      assert.deepEqual(billing.body.value, []);
      // A billing entity reads only its own supplier's lines.
      const lines = await readFeed(
        h,
        `InvoiceLines?$select=id,supplierRef&$top=3000`,
        h.tokens.billing,
        { prefer: 'odata.maxpagesize=500' },
      );
      assert.ok(lines.values.length > 0);
      assert.ok(lines.values.every((l) => l.supplierRef === h.supplierCode));
    });

    it('answers $select, $top, $skip, $orderby, $count and a key as REST would', async () => {
      const rest = (await readAllPages(h.app, '/api/v1/invoices', h.tokens.staff)).map(plain);
      const top = await get(
        h.app,
        `${FEED}/Invoices?$select=id,totalCents,total,currency&$skip=3&$top=4&$count=true`,
        h.tokens.staff,
      );
      assert.equal(top.body['@odata.count'], rest.length);
      assert.equal(
        top.body['@odata.context'],
        'http://localhost/odata/v4/$metadata#Invoices(id,totalCents,total,currency)',
      );
      assert.deepEqual(
        top.body.value.map((v: { id: string }) => v.id),
        rest.slice(3, 7).map((r) => r.id),
      );
      for (const v of top.body.value) {
        const digits = v.currency === 'JPY' ? 0 : v.currency === 'KWD' ? 3 : 2;
        assert.equal(v.total, v.totalCents / 10 ** digits);
      }
      const ordered = await readFeed(
        h,
        'Invoices?$select=id,totalCents&$orderby=totalCents%20desc,id',
        h.tokens.staff,
        { prefer: 'odata.maxpagesize=9' },
      );
      const expected = [...rest].sort(
        (a, b) =>
          (b.totalCents as number) - (a.totalCents as number) ||
          ((a.id as string) < (b.id as string) ? -1 : 1),
      );
      assert.deepEqual(
        ordered.values.map((v) => v.id),
        expected.map((r) => r.id),
      );
      const byNullable = await readFeed(
        h,
        'Invoices?$select=id,number&$orderby=number',
        h.tokens.staff,
        { prefer: 'odata.maxpagesize=11' },
      );
      assert.equal(byNullable.values.length, rest.length);
      assert.equal(new Set(byNullable.values.map((v) => v.id)).size, rest.length);
      assert.equal(byNullable.values[0].number, null, 'nulls first ascending');
      const one = await get(h.app, `${FEED}/Invoices('${rest[2].id}')`, h.tokens.staff);
      assert.equal(
        one.body['@odata.context'],
        'http://localhost/odata/v4/$metadata#Invoices/$entity',
      );
      assert.equal(one.body.id, rest[2].id);
      const missing = await get(h.app, `${FEED}/Invoices('inv_none')`, h.tokens.staff);
      assert.equal(missing.status, 404);
      const foreign = await get(
        h.app,
        `${FEED}/Invoices('${rest[2].id}')`,
        h.tokens.otherWorkspaceStaff,
      );
      assert.equal(foreign.status, 404);
    });

    it('expands Invoices’ Lines and Timesheets’ Entries (nested $select) as get_invoice and get_timesheet show them', async () => {
      const [consolidated] = await h.all<{ id: string }>(
        "SELECT id FROM invoices WHERE workspace_id = ? AND grouping_rule = 'consolidated' ORDER BY created_at, id LIMIT 1",
        WS,
      );
      for (const token of ['staff', 'billing'] as const) {
        const rest = await get(
          h.app,
          `/api/v1/invoices/item?id=${consolidated.id}`,
          h.tokens[token],
        );
        const one = await get(
          h.app,
          `${FEED}/Invoices('${consolidated.id}')?$select=id&$expand=Lines($select=id,amountCents,amount)`,
          h.tokens[token],
        );
        assert.equal(one.status, 200, one.raw);
        assert.equal(
          one.body['@odata.context'],
          'http://localhost/odata/v4/$metadata#Invoices(id,Lines(id,amountCents,amount))/$entity',
        );
        assert.deepEqual(
          one.body.Lines.map((l: { id: string }) => l.id).slice(0, 500),
          rest.body.data.item.lines.map((l: { id: string }) => l.id),
        );
        assert.equal(one.body.Lines.length, rest.body.data.item.lineCount);
        assert.deepEqual(Object.keys(one.body.Lines[0]), ['id', 'amountCents', 'amount']);
      }
      const page = await get(h.app, `${FEED}/Timesheets?$top=3&$expand=Entries`, h.tokens.staff);
      for (const timesheet of page.body.value) {
        const rest = await get(h.app, `/api/v1/timesheets/item?id=${timesheet.id}`, h.tokens.staff);
        assert.deepEqual(
          timesheet.Entries.map((e: Record<string, unknown>) => e.id),
          rest.body.data.item.entries.map((e: { id: string }) => e.id),
        );
      }
      // A navigation the token cannot follow is no navigation of its model.
      const none = await get(h.app, `${FEED}/Timesheets?$expand=Lines`, h.tokens.staff);
      assert.equal(none.status, 400);
    });

    it('answers a page asked again from its cache, the same bytes, each request still in the trail', async () => {
      const store = h.store as unknown as { selectPage: (...args: unknown[]) => Promise<unknown> };
      const read = store.selectPage.bind(h.store);
      let reads = 0;
      store.selectPage = (...args) => (reads++, read(...args));
      try {
        // A store that cannot tell cheaply that nothing changed (PostgreSQL) keeps nothing.
        const keeps = (await h.store.changeStamp()) !== null;
        const url = `${FEED}/Suppliers?$select=id,code&$top=4`;
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push(await get(h.app, url, h.tokens.staff));
        assert.equal(reads, keeps ? 2 : 3, 'kept from its second request on');
        assert.equal(answers[2].raw, answers[1].raw);
        for (const answer of answers) {
          const [event] = await eventsOf(h, answer.headers['x-request-id'] as string);
          assert.equal(event.revealed.length, 4);
        }
        const otherToken = await get(h.app, url, h.tokens.staff2);
        assert.equal(otherToken.raw, answers[0].raw);
        assert.equal(reads, keeps ? 3 : 4, 'kept per token');
      } finally {
        store.selectPage = read;
      }
    });

    it('binds a $skiptoken to the token and the query', async () => {
      const first = await get(h.app, `${FEED}/Workers?$select=id`, h.tokens.staff, {
        prefer: 'odata.maxpagesize=5',
      });
      assert.equal(first.headers['preference-applied'], 'odata.maxpagesize=5');
      const next = String(first.body['@odata.nextLink']).replace('http://localhost', '');
      assert.equal((await get(h.app, next, h.tokens.staff2)).status, 400);
      assert.equal((await get(h.app, next, h.tokens.staff2)).body.error.code, 'invalid_cursor');
      const changed = next.replace('$select=id', '$select=id,status');
      assert.equal((await get(h.app, changed, h.tokens.staff)).body.error.code, 'invalid_cursor');
      assert.equal((await get(h.app, next, h.tokens.staff)).status, 200);
    });

    it('takes a key as Bearer, as Basic password, and in api_key only when minted --in-url', async () => {
      const basic = `Basic ${Buffer.from(`anyone:${h.tokens.staff}`).toString('base64')}`;
      const viaBasic = await get(h.app, `${FEED}/Workers?$top=1`, undefined, {
        authorization: basic,
      });
      assert.equal(viaBasic.status, 200);
      const none = await get(h.app, `${FEED}/Workers?$top=1`);
      assert.equal(none.status, 401);
      assert.match(String(none.headers['www-authenticate']), /Basic realm="vms-read"/);
      const refused = await get(h.app, `${FEED}/Workers?$top=1&api_key=${h.tokens.staff}`);
      assert.equal(refused.status, 401);
      assert.doesNotMatch(refused.raw, /vmsr_/);
      const inUrl = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ['read:workforce'], inUrl: true },
        new Date(),
      );
      const page = await get(h.app, `${FEED}/Workers?$select=id&api_key=${inUrl}`, undefined, {
        prefer: 'odata.maxpagesize=2',
      });
      assert.equal(page.status, 200);
      const link = String(page.body['@odata.nextLink']);
      assert.doesNotMatch(link, /api_key|vmsr_/);
      // Power BI appends its key again to each nextLink.
      const again = await get(h.app, `${link.replace('http://localhost', '')}&api_key=${inUrl}`);
      assert.equal(again.status, 200);
      const both = await get(h.app, `${FEED}/Workers?api_key=${inUrl}`, h.tokens.staff);
      assert.equal(both.status, 401);
      const outOfScope = await get(h.app, `${FEED}/Invoices?api_key=${inUrl}`);
      assert.equal(outOfScope.status, 403);
    });

    for (const [query, status, code] of [
      ['$apply=groupby((status))', 501, 'not_implemented'],
      ['$search=x', 501, 'not_implemented'],
      ['$filter=year(createdAt) eq 2024', 501, 'not_implemented'],
      ['$filter=totalCents add 1 gt 5', 501, 'not_implemented'],
      ['$filter=status eq', 400, 'bad_request'],
      ["$filter=nosuch eq 'x'", 400, 'bad_request'],
      ["$filter=totalCents eq 'x'", 400, 'bad_request'],
      ['$orderby=nosuch', 400, 'bad_request'],
      ['$top=-1', 400, 'bad_request'],
      ['$skip=10001', 400, 'bad_request'],
      ['$top=1&$top=2', 400, 'bad_request'],
      ['custom=1', 400, 'bad_request'],
      ['$expand=Nothing', 400, 'bad_request'],
      ['$expand=Lines($filter=id eq 1)', 501, 'not_implemented'],
      ['$format=atom', 501, 'not_implemented'],
    ] as const)
      it(`answers ${query} with ${status} ${code} in OData's error body, never echoing it`, async () => {
        const answer = await get(
          h.app,
          `${FEED}/Invoices?${query.replace(/ /g, '%20')}`,
          h.tokens.staff,
        );
        assert.equal(answer.status, status, answer.raw);
        assert.deepEqual(Object.keys(answer.body).sort(), ['error', 'request_id']);
        assert.equal(answer.body.error.code, code);
        assert.equal(answer.body.request_id, answer.headers['x-request-id']);
        assert.ok(
          !answer.body.error.message.includes('nosuch') &&
            !answer.body.error.message.includes('groupby'),
        );
      });

    it('answers 404 for what names nothing and 403 for a set outside the token’s scopes', async () => {
      assert.equal((await get(h.app, `${FEED}/Nothing`, h.tokens.staff)).status, 404);
      assert.equal((await get(h.app, `${FEED}/Invoices`, h.tokens.workforceOnly)).status, 403);
      assert.equal((await get(h.app, `${FEED}/$batch`, h.tokens.staff)).status, 501);
      // Authentication before the options (DESIGN §4.1's order).
      assert.equal((await get(h.app, `${FEED}/Invoices?$apply=x`)).status, 401);
    });

    it('keeps an access-trail event per request: odata:<Set>, $filter as its length, records revealed', async () => {
      const answer = await get(
        h.app,
        `${FEED}/Workers?$filter=status%20eq%20'active'&$select=id,displayName&$top=2`,
        h.tokens.staff,
      );
      assert.equal(answer.status, 200);
      const [event] = await eventsOf(h, answer.headers['x-request-id'] as string);
      assert.equal(event.operation, 'odata:Workers');
      assert.deepEqual(event.params, {
        $filter: { text: true, length: "status eq 'active'".length },
        $select: ['id', 'displayName'],
        $top: 2,
      });
      assert.deepEqual(
        event.revealed,
        answer.body.value.map((w: { id: string }) => ({
          type: 'worker',
          id: w.id,
          worker: w.id,
          personalData: true,
        })),
      );
      const link = await get(h.app, `${FEED}/Workers?$top=1&api_key=${h.tokens.staff}`);
      const [refusal] = await eventsOf(h, link.headers['x-request-id'] as string);
      assert.doesNotMatch(JSON.stringify(refusal ?? {}), /vmsr_/);
    });
  });
