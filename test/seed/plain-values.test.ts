import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COLUMN_RULES, IMPORT_TABLES } from '../../src/importer/import-tables.js';
import { checkRow, latestVersionTime } from '../../src/importer/row-rules.js';
import { isPlainId } from '../../src/records/plain-values.js';
import { tinySeed } from './memory-sink.js';

describe('seed: plain fields pass the rules the importer applies', () => {
  it('gives every id-shaped column an id-shaped value', async () => {
    const { sink } = await tinySeed();
    for (const table of IMPORT_TABLES) {
      const columns = COLUMN_RULES[table].filter((rule) => rule.format === 'id');
      let checked = 0;
      for (const row of sink.table(table))
        for (const { name } of columns) {
          const value = row[name];
          if (value === null) continue;
          checked++;
          if (!isPlainId(value)) assert.fail(`${table}.${name} ${JSON.stringify(value)}`);
        }
      assert.ok(checked > 0, `${table} has seeded ids`);
    }
  });

  it('writes rows the importer would accept, column for column', async () => {
    const { sink } = await tinySeed();
    for (const table of IMPORT_TABLES) {
      for (const row of sink.table(table)) {
        const { problems } = checkRow(table, row, {
          workspaceId: String(row.workspace_id),
          format: 'ndjson',
          notAfter: latestVersionTime(Date.now()),
        });
        if (problems.length > 0) assert.fail(`${table} ${String(row.id)}: ${problems.join('; ')}`);
      }
    }
  });
});
