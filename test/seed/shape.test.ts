import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProgramConfig } from '../../src/store/program-config.js';
import { DATA_TABLES } from '../../src/store/schema.js';
import { schemaColumns, tinySeed, TINY, WORKSPACE_IDS } from './memory-sink.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const AS_OF_END = `${TINY.asOf}T23:59:59.999Z`;

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) assert.fail(`missing ${what}`);
  return value;
}

describe('seed row shapes (tiny)', () => {
  it('writes exactly the schema columns, tables in dependency order per workspace', async () => {
    const { sink } = await tinySeed();
    const columns = schemaColumns();
    for (const [table, rows] of sink.rows) {
      const expected = must(columns.get(table), `DDL for ${table}`);
      for (const row of rows)
        assert.deepEqual(Object.keys(row).sort(), [...expected].sort(), table);
    }
    const seen: string[] = [];
    let last = -1;
    for (const call of sink.calls) {
      if (seen.at(-1) !== call.workspace) {
        assert.ok(!seen.includes(call.workspace), 'workspaces written one after another');
        seen.push(call.workspace);
        last = -1;
      }
      const position = DATA_TABLES.indexOf(call.table);
      assert.ok(position >= last, `${call.table} after ${DATA_TABLES[last]}`);
      last = position;
      assert.ok(call.size > 0 && call.size <= 5000, 'batches are bounded');
    }
    assert.deepEqual(seen, WORKSPACE_IDS);
  });

  it('uses unique short ids and well-formed, past timestamps and dates', async () => {
    const { sink } = await tinySeed();
    const ids = new Set<string>();
    for (const [table, rows] of sink.rows) {
      for (const row of rows) {
        if (typeof row.id === 'string') {
          assert.ok(!ids.has(row.id), `duplicate id ${row.id}`);
          assert.ok(row.id.length <= 64);
          ids.add(row.id);
        }
        for (const [column, value] of Object.entries(row)) {
          if (value === null) continue;
          if (column.endsWith('_at')) {
            assert.match(String(value), TIMESTAMP, `${table}.${column}`);
            assert.ok(String(value) <= AS_OF_END, `${table}.${column} ${value} after asOf`);
          }
          if (
            [
              'period_start',
              'period_end',
              'work_date',
              'incurred_on',
              'start_date',
              'end_date',
              'tenure_start',
            ].includes(column)
          ) {
            assert.match(String(value), DATE, `${table}.${column}`);
          }
        }
        if (row.updated_at !== undefined && row.created_at !== undefined)
          assert.ok(
            String(row.updated_at) >= String(row.created_at),
            `${table} updated before created`,
          );
      }
    }
  });

  it('stores a program configuration per workspace and saved queries over its catalog', async () => {
    const { sink, summary } = await tinySeed();
    assert.deepEqual(
      summary.workspaces.map((w) => [w.id, w.plan, w.catalogSource]),
      [
        ['ws_business', 'business', 'default'],
        ['ws_team', 'team', 'program_config'],
        ['ws_enterprise', 'enterprise', 'semantic_catalog_table'],
      ],
    );
    const plans = sink.table('workspaces').map((w) => [w.id, w.page_size, w.row_budget]);
    assert.deepEqual(plans, [
      ['ws_business', 50, 500],
      ['ws_team', 50, 200],
      ['ws_enterprise', 100, 1000],
    ]);
    for (const ws of WORKSPACE_IDS) {
      const configs = sink.of('program_configs', ws);
      assert.equal(configs.length, 1);
      const config = JSON.parse(String(configs[0].config)) as ProgramConfig;
      assert.deepEqual(
        config.payCodes.map((p) => [p.code, p.multiplierBp]),
        [
          ['REG', 10000],
          ['OT', 15000],
          ['DT', 20000],
          ['HOL', 15000],
        ],
      );
      assert.equal(config.enabledMetrics === null, ws !== 'ws_team');
      for (const q of sink.of('saved_queries', ws)) {
        const definition = JSON.parse(String(q.definition)) as { query: { metrics: string[] } };
        for (const metric of definition.query.metrics) {
          assert.ok(
            config.enabledMetrics === null || config.enabledMetrics.includes(metric),
            `${ws} ${metric}`,
          );
        }
        assert.equal(q.dashboard_id !== null, q.kind === 'dashboard_tile');
      }
      const counts = summary.workspaces.find((w) => w.id === ws)?.counts ?? {};
      for (const table of DATA_TABLES)
        assert.equal(counts[table], sink.of(table, ws).length, `${ws} ${table} count`);
    }
  });
});
