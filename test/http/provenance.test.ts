import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { OPERATIONS } from '../../src/operations/registry.js';
import { PROVENANCE_GUIDANCE } from '../../src/provenance.js';
import { findEnvelopes, resolvePath } from '../support/json-path.js';
import type { AuditTrail } from '../../src/audit/trail.js';
import { get, post, qs, startHarness, WS, type Harness, DIALECTS } from '../support/harness.js';

/** SPEC "Fields that are always wrapped", per record; written out here, not read from the code. */
const WRAPPED: Record<string, string[]> = {
  worker: ['displayName', 'workEmail', 'classificationStatus'],
  timesheet: [],
  entry: ['supplierRef', 'payCode'],
  invoice: ['supplierRef', 'number', 'groupKey'],
  line: ['supplierRef', 'orgUnitKey', 'payCode', 'description'],
  supplier: ['code', 'name'],
  assignment: ['supplierRef', 'jobCode', 'siteKey', 'orgUnitKey'],
  expense: ['supplierRef', 'category'],
  approval: [],
};

/** SPEC: supplier and org-unit values in report rows; DESIGN §4.6 adds site, job code, pay code. */
const PEOPLE_TYPED_DIMENSIONS = [
  'supplier',
  'org_unit',
  'site',
  'job_code',
  'pay_code',
  'expense_category',
];

const LIST_RECORD: Record<string, string> = {
  list_workers: 'worker',
  list_timesheets: 'timesheet',
  list_invoices: 'invoice',
  list_suppliers: 'supplier',
  list_assignments: 'assignment',
  list_expenses: 'expense',
  list_approval_statuses: 'approval',
};

/** The record kind of each change feed item type. */
const FEED_RECORD: Record<string, string> = {
  worker: 'worker',
  timesheet: 'timesheet',
  invoice: 'invoice',
  supplier: 'supplier',
  assignment: 'assignment',
  expense: 'expense',
  approval_status: 'approval',
};

/** Checks a record: wrapped fields are envelopes (or null), everything else is plain. */
function assertRecord(kind: string, record: Record<string, unknown>, where: string) {
  for (const [field, value] of Object.entries(record)) {
    const isEnvelope =
      value !== null &&
      typeof value === 'object' &&
      (value as { kind?: string }).kind === 'vms.provenance';
    if (WRAPPED[kind].includes(field)) {
      assert.ok(value === null || isEnvelope, `${where}.${field} must be a provenance envelope`);
    } else {
      assert.ok(
        value === null || typeof value !== 'object',
        `${where}.${field} must be a plain value`,
      );
    }
  }
}

for (const dialect of DIALECTS) {
  describe(`provenance envelopes on every operation (${dialect})`, () => {
    let h: Harness;
    const answers: Record<string, unknown> = {};
    before(async () => {
      h = await startHarness({ dialect, audit: true });
      for (const [op, path] of Object.entries({
        list_workers: '/api/v1/workers',
        list_timesheets: '/api/v1/timesheets',
        list_invoices: '/api/v1/invoices',
        list_suppliers: '/api/v1/suppliers',
        list_assignments: '/api/v1/assignments',
        list_expenses: '/api/v1/expenses',
        list_approval_statuses: '/api/v1/approval-statuses',
      })) {
        answers[op] = (await get(h.app, path, h.tokens.staff)).body.data;
      }
      const one = async (sql: string) => (await h.one<{ id: string }>(sql, WS)).id;
      answers.get_worker = (
        await get(
          h.app,
          `/api/v1/workers/item${qs({ id: await one(`SELECT id FROM workers WHERE workspace_id = ? AND work_email IS NOT NULL LIMIT 1`) })}`,
          h.tokens.staff,
        )
      ).body.data;
      answers.get_timesheet = (
        await get(
          h.app,
          `/api/v1/timesheets/item${qs({ id: await one(`SELECT timesheet_id AS id FROM time_entries WHERE workspace_id = ? AND supplier_ref IS NOT NULL LIMIT 1`) })}`,
          h.tokens.staff,
        )
      ).body.data;
      answers.get_invoice = (
        await get(
          h.app,
          `/api/v1/invoices/item${qs({ id: await one(`SELECT id FROM invoices WHERE workspace_id = ? AND number IS NOT NULL AND supplier_ref IS NOT NULL LIMIT 1`) })}`,
          h.tokens.staff,
        )
      ).body.data;
      answers.list_changes = (
        await get(h.app, '/api/v1/changes?type=invoice', h.tokens.staff)
      ).body.data;
      answers.list_catalog = (
        await get(h.app, '/api/v1/reports/catalog', h.tokens.staff)
      ).body.data;
      answers.run_semantic_query = (
        await post(h.app, '/api/v1/reports/query', h.tokens.staff, {
          query: {
            metrics: ['spend'],
            dimensions: ['supplier', 'org_unit', 'currency', 'pay_code'],
            limit: 50,
          },
        })
      ).body.data;
      answers.list_saved_queries = (
        await get(h.app, '/api/v1/reports/saved-queries', h.tokens.staff)
      ).body.data;
      const saved = await h.one<{ id: string }>(
        `SELECT id FROM saved_queries WHERE workspace_id = ? AND definition LIKE '%"supplier"%' LIMIT 1`,
        WS,
      );
      answers.run_saved_query = (
        await post(h.app, '/api/v1/reports/saved-queries/run', h.tokens.staff, {
          savedQueryId: saved.id,
        })
      ).body.data;
      // The trail of the requests above: a user agent, parameters and a report query enveloped.
      await (h.executor.deps.answers as AuditTrail).flush();
      answers.list_audit_events = (
        await get(h.app, '/api/v1/audit-events?limit=50', h.tokens.staff, {
          'user-agent': 'tests/1',
        })
      ).body.data;
    });
    after(() => h.close());

    it('covers every operation of the registry', () => {
      assert.deepEqual(Object.keys(answers).sort(), OPERATIONS.map((op) => op.name).sort());
    });

    for (const op of OPERATIONS) {
      describe(op.name, () => {
        it('matches its output schema', () => {
          const validate = new Ajv({ strict: false }).compile(op.output);
          assert.ok(validate(answers[op.name]), JSON.stringify(validate.errors));
        });

        it('wraps every field SPEC lists and leaves ids, enums, dates, amounts and currencies plain', () => {
          const data = answers[op.name] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
          if (op.name in LIST_RECORD) {
            assert.ok(data.items.length > 0);
            data.items.forEach((item: Record<string, unknown>, i: number) =>
              assertRecord(LIST_RECORD[op.name], item, `$.items[${i}]`),
            );
          } else if (op.name === 'list_changes') {
            assert.ok(data.items.length > 0);
            data.items.forEach(
              (item: { type: string; record: Record<string, unknown> }, i: number) =>
                assertRecord(FEED_RECORD[item.type], item.record, `$.items[${i}].record`),
            );
          } else if (op.name === 'get_worker') {
            assertRecord('worker', data.item, '$.item');
          } else if (op.name === 'get_timesheet') {
            assertRecord('timesheet', data.item.timesheet, '$.item.timesheet');
            assert.ok(data.item.entries.length > 0);
            data.item.entries.forEach((e: Record<string, unknown>, i: number) =>
              assertRecord('entry', e, `$.item.entries[${i}]`),
            );
          } else if (op.name === 'run_semantic_query' || op.name === 'run_saved_query') {
            assert.ok(data.rows.length > 0);
            for (const row of data.rows) {
              for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
                const isEnvelope = (value as { kind?: string } | null)?.kind === 'vms.provenance';
                if (PEOPLE_TYPED_DIMENSIONS.includes(key))
                  assert.ok(value === null || isEnvelope, key);
                else assert.ok(value === null || typeof value !== 'object', key);
              }
            }
            if (op.name === 'run_saved_query')
              assert.equal(data.savedQuery.name.kind, 'vms.provenance');
          } else if (op.name === 'list_saved_queries') {
            for (const item of data.items) assert.equal(item.name.kind, 'vms.provenance');
          } else if (op.name === 'list_audit_events') {
            assert.ok(data.items.length > 0);
            const envelope = (value: unknown) =>
              (value as { kind?: string } | null)?.kind === 'vms.provenance';
            for (const item of data.items) {
              // What a caller or client wrote: enveloped; ids, statuses, the address: plain.
              assert.ok(item.userAgent === null || envelope(item.userAgent));
              assert.ok(item.params === null || envelope(item.params));
              assert.ok(item.report === null || envelope(item.report.query));
              for (const key of ['requestId', 'at', 'hash', 'transport'])
                assert.equal(typeof item[key], 'string', key);
            }
            assert.ok(data.items.some((item: { report: unknown }) => item.report !== null));
          } else if (op.name === 'get_invoice') {
            assertRecord('invoice', data.item.invoice, '$.item.invoice');
            assert.ok(data.item.lines.length > 0);
            data.item.lines.forEach((l: Record<string, unknown>, i: number) =>
              assertRecord('line', l, `$.item.lines[${i}]`),
            );
          }
        });

        it('gives each envelope the fixed constants and a source.path that resolves to itself', () => {
          const envelopes = findEnvelopes(answers[op.name]);
          const withoutText = ['list_timesheets', 'list_approval_statuses', 'list_catalog'];
          if (!withoutText.includes(op.name)) assert.ok(envelopes.length > 0);
          for (const { path, envelope } of envelopes) {
            assert.deepEqual(Object.keys(envelope).sort(), [
              'direction',
              'guidance',
              'kind',
              'source',
              'trust',
              'value',
            ]);
            assert.equal(envelope.direction, 'outbound');
            assert.equal(envelope.trust, 'untrusted-third-party');
            assert.equal(envelope.guidance, PROVENANCE_GUIDANCE);
            assert.deepEqual(envelope.source, { operationId: op.name, path });
            assert.equal(typeof envelope.value, 'string');
            assert.equal(resolvePath(answers[op.name], path), envelope);
          }
        });
      });
    }

    it('keeps the stored text unchanged in value', async () => {
      const page = answers.list_workers as {
        items: { id: string; displayName: { value: string } }[];
      };
      for (const item of page.items) {
        const stored = await h.one<{ display_name: string }>(
          'SELECT display_name FROM workers WHERE id = ?',
          item.id,
        );
        assert.equal(item.displayName.value, stored.display_name);
      }
    });

    it('includes displayName and workEmail keys with read:pii', async () => {
      const page = (await get(h.app, '/api/v1/workers', h.tokens.staff)).body.data;
      for (const item of page.items) {
        assert.equal(item.displayName.kind, 'vms.provenance');
        assert.ok('workEmail' in item);
      }
    });

    it('omits displayName and workEmail keys without read:pii', async () => {
      const page = (await get(h.app, '/api/v1/workers', h.tokens.staffNoPii)).body.data;
      for (const item of page.items) {
        assert.ok(!('displayName' in item) && !('workEmail' in item));
        assert.ok('classificationStatus' in item);
      }
      const id = page.items[0].id;
      const one = (await get(h.app, `/api/v1/workers/item${qs({ id })}`, h.tokens.staffNoPii)).body
        .data.item;
      assert.ok(!('displayName' in one) && !('workEmail' in one));
    });

    it('sends workEmail as null (key present) when none is on file, with read:pii', async () => {
      const row = await h.one<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id = ? AND work_email IS NULL LIMIT 1',
        WS,
      );
      const item = (await get(h.app, `/api/v1/workers/item${qs({ id: row.id })}`, h.tokens.staff))
        .body.data.item;
      assert.equal(item.workEmail, null);
    });
  });
}
