import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importSources, type ImportSource } from '../../src/importer/import-pass.js';
import { CappedProblems, formatProblems, PROBLEM_CAP } from '../../src/importer/import-problems.js';
import { COLUMN_RULES, type ImportTable } from '../../src/importer/import-tables.js';
import { latestVersionTime } from '../../src/importer/row-rules.js';
import type { LoadResult } from '../../src/store/load/load.js';
import type { Row } from '../../src/store/sink.js';
import type { AdminWrites } from '../../src/store/store.js';
import { planSources } from '../../src/importer/source-files.js';
import { PLAIN_ID_SHAPE } from '../../src/records/plain-values.js';
import { AT, VALID, WS } from './valid-rows.js';

const ndjson = (...rows: Record<string, unknown>[]) =>
  rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
const valid = (table: string, changes: Record<string, unknown> = {}) => ({
  ...VALID[table],
  ...changes,
});
const without = (table: string, column: string) => {
  const row = { ...VALID[table] };
  delete row[column];
  return row;
};

/** What the store holds, as the import asks it: rows by table (each with its workspace_id). */
type Stored = Partial<Record<ImportTable, Row[]>>;

const NOTHING_STORED: Stored = {};

/** A store as the import sees it: lookups answered from `stored` (and recorded), rows kept. */
function storeOf(stored: Stored) {
  const asked: [string, string, string | null, string[]][] = [];
  const written = new Map<ImportTable, Row[]>();
  const store: Pick<AdminWrites, 'storedRows' | 'openLoad'> = {
    storedRows: async (table, column, values, columns, workspaceId) => {
      asked.push([table, column, workspaceId, [...values]]);
      return (stored[table as ImportTable] ?? [])
        .filter((row) => values.includes(String(row[column])))
        .filter((row) => workspaceId === null || row.workspace_id === workspaceId)
        .map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
    },
    openLoad: async () => {
      // Kept as the store writes a new row: a column the file leaves out is null.
      const insert = async (table: string, rows: Row[]) => {
        const columns = COLUMN_RULES[table as ImportTable].map((rule) => rule.name);
        const full = rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
        pending.set(table as ImportTable, [...(pending.get(table as ImportTable) ?? []), ...full]);
      };
      // What the load wrote is kept only when it finishes (a problem rolls it back).
      const pending = new Map<ImportTable, Row[]>();
      return {
        insert,
        insertRead: insert,
        remove: async () => {},
        finish: async () => {
          for (const [table, rows] of pending) written.set(table, rows);
          return { changed: true, version: 1, counts: {} as LoadResult['counts'] };
        },
        abort: async () => {
          pending.clear();
        },
      };
    },
  };
  return { store, asked, written };
}

/** The pipeline of `vms-read import` over texts given in memory, with the store's answers given. */
async function check(files: Record<string, string>, stored: Stored = NOTHING_STORED) {
  const plan = planSources(Object.keys(files));
  const sources: ImportSource[] = plan.sources.map((source) => ({
    ...source,
    // Chunks of 64 KiB, as the importer reads files (a small file: two, split mid-text).
    text: async function* () {
      const text = files[source.file];
      const size = Math.min(65_536, Math.ceil(text.length / 2));
      for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
    },
  }));
  const problems = new CappedProblems();
  for (const problem of plan.problems) problems.push(problem);
  const { store, asked, written } = storeOf(stored);
  const options = { workspaceId: WS, notAfter: latestVersionTime(Date.now()) };
  await importSources(sources, options, store, problems, { failed: problems.total > 0 });
  return {
    written,
    asked,
    lines: formatProblems(problems.list, PROBLEM_CAP, problems.total),
  };
}

/** Workers in CSV: the columns of VALID.workers, in this order. */
const WORKER_HEADER = 'id,type,display_name,onboarding_state,status,created_at,updated_at';
const workerCsv = (...rows: string[]) => [WORKER_HEADER, ...rows].join('\n') + '\n';
const WORKER_CSV_ROW = `wkr_1,profile_only,Ana,active,active,${AT},${AT}`;

const CASES: [rule: string, files: Record<string, string>, expected: string[]][] = [
  [
    'an unknown column',
    { 'workers.ndjson': ndjson(valid('workers', { nickname: 'A' })) },
    ['workers.ndjson:1: unknown column "nickname"'],
  ],
  [
    'workspace_id given',
    { 'workers.ndjson': ndjson(valid('workers', { workspace_id: WS })) },
    ['workers.ndjson:1: workspace_id must not be given: rows go to --workspace'],
  ],
  [
    'a NOT NULL column absent',
    { 'workers.ndjson': ndjson(without('workers', 'display_name')) },
    [
      'workers.ndjson:1: missing column display_name: a new record needs every required column (only an update of a stored record may leave columns out)',
    ],
  ],
  [
    "text past its column's length (names 200, codes 100, definitions 16,384 characters)",
    {
      'workers.ndjson': ndjson(valid('workers', { display_name: 'n'.repeat(201) })),
      'suppliers.ndjson': ndjson(valid('suppliers', { code: 'C'.repeat(101) })),
      'saved_queries.ndjson': ndjson(
        valid('saved_queries', {
          definition: JSON.stringify({ query: { metrics: ['spend'] }, pad: 'x'.repeat(16_400) }),
        }),
      ),
    },
    [
      'saved_queries.ndjson:1: definition is longer than 16,384 characters',
      'suppliers.ndjson:1: code is longer than 100 characters',
      'workers.ndjson:1: display_name is longer than 200 characters',
    ],
  ],
  [
    'nothing for text at its length, counted in characters (an emoji is one)',
    { 'workers.ndjson': ndjson(valid('workers', { display_name: '😀'.repeat(200) })) },
    [],
  ],
  [
    'values nested deeper than 32 arrays and objects (JSON.parse takes them; the checks must not overflow)',
    {
      'workers.ndjson': `${JSON.stringify(valid('workers')).replace('"Ana"', `${'['.repeat(100_000)}${']'.repeat(100_000)}`)}\n`,
      'saved_queries.csv': [
        'id,kind,name,definition,author,pinned_at,created_at',
        `sq_1,library,Deep,"${'['.repeat(50)}${']'.repeat(50)}",me,${AT},${AT}`,
      ].join('\n'),
    },
    [
      'saved_queries.csv:2: definition nests arrays and objects deeper than 32 levels',
      'workers.ndjson:1: nests arrays and objects deeper than 32 levels',
    ],
  ],
  [
    'an NDJSON line over 1 MiB: reported, skipped to its end, the lines after it read',
    {
      'workers.ndjson': ndjson(
        valid('workers', { display_name: 'x'.repeat(2 * 1024 * 1024) }),
        valid('workers', { id: 'wkr_2', status: 'busy' }),
      ),
    },
    [
      'workers.ndjson:1: the line is longer than 1,048,576 characters (a value too long); it is not read',
      'workers.ndjson:2: status must be one of active, inactive, got "busy"',
    ],
  ],
  [
    'a CSV record over 1 MiB: reported where it starts, the rest of the file not read',
    {
      'workers.csv': workerCsv(
        WORKER_CSV_ROW,
        `wkr_2,profile_only,"${'x'.repeat(2 * 1024 * 1024)}",active,active,${AT},${AT}`,
        `wkr_3,profile_only,Bo,busy,active,${AT},${AT}`,
      ),
    },
    [
      'workers.csv:3: a record longer than 1,048,576 characters starts here (a value too long, or a quote never closed); the rest of the file is not read',
    ],
  ],
  [
    'a NOT NULL column null',
    { 'workers.ndjson': ndjson(valid('workers', { display_name: null })) },
    ['workers.ndjson:1: missing value for display_name'],
  ],
  [
    'a NOT NULL column empty in CSV',
    { 'workers.csv': workerCsv(`wkr_1,profile_only,,active,active,${AT},${AT}`) },
    ['workers.csv:2: missing value for display_name'],
  ],
  [
    'a CSV header lacking a NOT NULL column or naming an unknown one',
    {
      'workers.csv': [
        'id,type,nick,onboarding_state,status,created_at,updated_at',
        `wkr_1,profile_only,Ana,active,active,${AT},${AT}`,
      ].join('\r\n'),
    },
    [
      'workers.csv:1: unknown column "nick"',
      'workers.csv:2: missing column display_name: a new record needs every required column (only an update of a stored record may leave columns out)',
    ],
  ],
  [
    'a repeated CSV column',
    { 'workers.csv': workerCsv(`${WORKER_CSV_ROW}`).replace('status,', 'status,status,') },
    [
      'workers.csv:1: duplicate column "status"',
      'workers.csv:2: expected 8 fields as in the header, got 7',
    ],
  ],
  [
    'a CSV row with a wrong number of fields',
    { 'workers.csv': workerCsv(WORKER_CSV_ROW.replace('wkr_1', 'wkr_1,extra')) },
    ['workers.csv:2: expected 7 fields as in the header, got 8'],
  ],
  [
    'malformed CSV',
    { 'workers.csv': workerCsv(WORKER_CSV_ROW.replace('Ana', '"Ana')) },
    ['workers.csv:2: unterminated quoted field'],
  ],
  [
    'a line that is not JSON, or not an object',
    { 'workers.ndjson': '{"id": \n[1]\n' },
    [
      `workers.ndjson:1: not valid JSON (${errorOf('{"id": ')})`,
      'workers.ndjson:2: expected a JSON object, got an array',
    ],
  ],
  [
    'a non-integer where BIGINT is declared (CSV and NDJSON)',
    {
      'workers.ndjson': ndjson(valid('workers')),
      'assignments.ndjson': ndjson(
        valid('assignments', { bill_rate_cents: 12.5 }),
        valid('assignments', { id: 'asg_2', bill_rate_cents: '5000' }),
      ),
    },
    [
      'assignments.ndjson:1: bill_rate_cents must be an integer, got 12.5',
      'assignments.ndjson:2: bill_rate_cents must be an integer, got "5000"',
    ],
  ],
  [
    'an INTEGER out of its 32-bit range',
    {
      'timesheets.csv': [
        'id,worker_id,entry_mode,period_start,period_end,status,config_version,created_at,updated_at',
        `ts_1,wkr_1,hourly,2026-06-01,2026-06-07,approved,3000000000,${AT},${AT}`,
        `ts_2,wkr_1,hourly,2026-06-01,2026-06-07,approved,1.0,${AT},${AT}`,
      ].join('\n'),
    },
    [
      'timesheets.csv:2: config_version must be an integer from -2147483648 to 2147483647, got "3000000000"',
      'timesheets.csv:2: worker_id "wkr_1" is neither in the workers file nor in workspace ws_business',
      'timesheets.csv:3: config_version must be an integer, got "1.0"',
      'timesheets.csv:3: worker_id "wkr_1" is neither in the workers file nor in workspace ws_business',
    ],
  ],
  [
    'a boolean that is not one',
    {
      'workers.ndjson': ndjson(valid('workers')),
      'assignments.ndjson': ndjson(valid('assignments')),
      'timesheets.ndjson': ndjson(valid('timesheets')),
      'time_entries.ndjson': ndjson(valid('time_entries', { captured_on_behalf: 'yes' })),
    },
    ['time_entries.ndjson:1: captured_on_behalf must be true, false, 0 or 1, got "yes"'],
  ],
  [
    'a date or timestamp not in the stored format',
    {
      'workers.ndjson': ndjson(
        valid('workers', { tenure_start: '2026-02-30' }),
        valid('workers', { id: 'wkr_2', created_at: '2026-06-01T08:00:00Z' }),
        valid('workers', { id: 'wkr_3', updated_at: '2026-06-01T08:00:00.000+00:00' }),
        valid('workers', {
          id: 'wkr_4',
          tenure_start: '2026-13-01',
          created_at: '2026-06-01T24:00:00.000Z',
        }),
      ),
    },
    [
      'workers.ndjson:1: tenure_start must be a date YYYY-MM-DD, got "2026-02-30"',
      'workers.ndjson:2: created_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.sssZ, got "2026-06-01T08:00:00Z"',
      'workers.ndjson:3: updated_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.sssZ, got "2026-06-01T08:00:00.000+00:00"',
      'workers.ndjson:4: tenure_start must be a date YYYY-MM-DD, got "2026-13-01"',
      'workers.ndjson:4: created_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.sssZ, got "2026-06-01T24:00:00.000Z"',
    ],
  ],
  [
    'a value outside its enumeration',
    {
      'workers.ndjson': ndjson(valid('workers', { onboarding_state: 'hired' })),
      'saved_queries.ndjson': ndjson(valid('saved_queries', { kind: 'tile' })),
    },
    [
      'saved_queries.ndjson:1: kind must be one of library, dashboard_tile, briefing, got "tile"',
      'workers.ndjson:1: onboarding_state must be one of invited, onboarding, active, offboarded, got "hired"',
    ],
  ],
  [
    'a currency that is not an ISO code',
    {
      'workers.ndjson': ndjson(valid('workers')),
      'assignments.ndjson': ndjson(valid('assignments', { currency: 'usd' })),
    },
    ['assignments.ndjson:1: currency must be a three-letter ISO 4217 code in capitals, got "usd"'],
  ],
  [
    'text that is not a string, holds NUL, or an id too long',
    {
      'workers.ndjson': ndjson(
        valid('workers', { display_name: 42 }),
        valid('workers', { id: 'wkr_2', display_name: 'A\u0000B' }),
        valid('workers', { id: 'w'.repeat(65) }),
      ),
    },
    [
      'workers.ndjson:1: display_name must be a string, got 42',
      'workers.ndjson:2: display_name contains a NUL character',
      `workers.ndjson:3: id must be ${PLAIN_ID_SHAPE}, got "${'w'.repeat(56)}…`,
    ],
  ],
  [
    'a saved-query definition run_semantic_query would not accept',
    { 'saved_queries.ndjson': ndjson(valid('saved_queries', { definition: '{"query":{}}' })) },
    [
      'saved_queries.ndjson:1: definition must be {"query": {...}, "period"?: {...}} as run_semantic_query accepts',
    ],
  ],
  [
    'a duplicate id or supplier code in the files',
    {
      'workers.ndjson': ndjson(valid('workers'), valid('workers')),
      'suppliers.ndjson': ndjson(valid('suppliers'), valid('suppliers', { id: 'sup_2' })),
    },
    [
      'suppliers.ndjson:2: duplicate code "IMP-1" (first at line 1)',
      'workers.ndjson:2: duplicate id "wkr_1" (first at line 1)',
    ],
  ],
  [
    'a reference to an id neither in the files nor in the workspace',
    {
      'workers.ndjson': ndjson(valid('workers')),
      'time_entries.ndjson': ndjson(valid('time_entries', { assignment_id: 'asg_9' })),
    },
    [
      'time_entries.ndjson:1: timesheet_id "ts_1" is neither in the timesheets file nor in workspace ws_business',
      'time_entries.ndjson:1: assignment_id "asg_9" is neither in the assignments file nor in workspace ws_business',
    ],
  ],
  [
    'a file named after no table, or a table given twice',
    {
      'notes.txt': 'x',
      'workers.csv': workerCsv(WORKER_CSV_ROW),
      'workers.ndjson': ndjson(valid('workers')),
    },
    [
      'notes.txt: not an import file: expected <table>.csv or <table>.ndjson, table one of suppliers, workers, assignments, timesheets, time_entries, expenses, invoices, invoice_lines, approval_statuses, saved_queries, or deletions.csv or deletions.ndjson',
      'workers.ndjson: workers is already given by workers.csv',
    ],
  ],
];

function errorOf(json: string): string {
  try {
    JSON.parse(json);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('import row checks: each rule gives file:line: message', () => {
  for (const [rule, files, expected] of CASES) {
    it(`reports ${rule}`, async () => {
      assert.deepEqual((await check(files)).lines, expected);
    });
  }

  it('counts any number of problems, keeping the first ones (no call-stack limit on large files)', async () => {
    // Each row is a new record lacking required columns, and all but the first repeat the id:
    // 299,999 problems.
    const { lines } = await check({ 'workers.ndjson': '{"id": "w"}\n'.repeat(150_000) });
    assert.equal(lines.length, 101);
    assert.equal(lines[100], '… and 299899 more problems');
  });

  it('accepts a consistent set and writes stored rows: workspace set, CSV empty as null, flags 0/1', async () => {
    const { written, lines } = await check({
      'workers.csv': [
        `${WORKER_HEADER},work_email`,
        `${WORKER_CSV_ROW},`,
        `wkr_2,profile_only,"Zoë ""Z"" 🚀\nline two",active,active,${AT},${AT},z@example.com`,
      ].join('\n'),
      'assignments.ndjson': ndjson(valid('assignments', { bill_rate_cents: 9007199254740991 })),
      'timesheets.ndjson': ndjson(valid('timesheets')),
      'time_entries.ndjson': ndjson(
        valid('time_entries'),
        valid('time_entries', { id: 'te_2', captured_on_behalf: 1 }),
      ),
      'saved_queries.ndjson': ndjson(valid('saved_queries')),
    });
    assert.deepEqual(lines, []);
    const rows = (table: ImportTable) => written.get(table);
    assert.deepEqual(rows('workers'), [
      {
        id: 'wkr_1',
        workspace_id: WS,
        supplier_ref: null,
        org_unit_key: null,
        type: 'profile_only',
        display_name: 'Ana',
        work_email: null,
        classification_status: null,
        tenure_start: null,
        onboarding_state: 'active',
        status: 'active',
        created_at: AT,
        updated_at: AT,
      },
      {
        id: 'wkr_2',
        workspace_id: WS,
        supplier_ref: null,
        org_unit_key: null,
        type: 'profile_only',
        display_name: 'Zoë "Z" 🚀\nline two',
        work_email: 'z@example.com',
        classification_status: null,
        tenure_start: null,
        onboarding_state: 'active',
        status: 'active',
        created_at: AT,
        updated_at: AT,
      },
    ]);
    assert.deepEqual(
      rows('time_entries')?.map((row) => row.captured_on_behalf),
      [0, 1],
    );
    assert.equal(rows('saved_queries')?.[0].definition, '{"query":{"metrics":["spend"]}}');
  });

  it('asks the store about ids, codes and references as each batch arrives, and accepts references the workspace holds', async () => {
    const files = {
      'suppliers.ndjson': ndjson(valid('suppliers')),
      'assignments.ndjson': ndjson(valid('assignments', { worker_id: 'wkr_ws' })),
    };
    assert.deepEqual((await check(files)).asked, [
      ['suppliers', 'id', null, ['sup_1']],
      ['suppliers', 'code', WS, ['IMP-1']],
      ['assignments', 'id', null, ['asg_1']],
      ['workers', 'id', WS, ['wkr_ws']],
    ]);
    const worker = { ...stored('workers'), id: 'wkr_ws' };
    assert.deepEqual((await check(files, { workers: [worker] })).lines, []);
  });

  it('refuses an id another workspace holds, and a code another supplier of the workspace holds', async () => {
    const files = {
      'suppliers.ndjson': ndjson(valid('suppliers')),
      'assignments.ndjson': ndjson(valid('assignments')),
      'workers.ndjson': ndjson(valid('workers')),
    };
    const held: Stored = {
      assignments: [{ ...stored('assignments'), workspace_id: 'ws_team' }],
      suppliers: [{ ...stored('suppliers'), id: 'sup_other' }],
    };
    assert.deepEqual((await check(files, held)).lines, [
      'assignments.ndjson:1: id "asg_1" already exists in another workspace',
      'suppliers.ndjson:1: code "IMP-1" already belongs to supplier "sup_other" in workspace ws_business',
    ]);
  });

  it('judges a stored id by the upsert rules: the same row, a later or earlier version pass; a changed entry or a rival of the same time does not', async () => {
    const later = '2026-06-02T08:00:00.000Z';
    const same = { workers: [stored('workers')] };
    const files = (table: string, row: Record<string, unknown>) => ({
      [`${table}.ndjson`]: ndjson(row),
      ...(table === 'time_entries'
        ? {
            'workers.ndjson': ndjson(valid('workers')),
            'assignments.ndjson': ndjson(valid('assignments')),
            'timesheets.ndjson': ndjson(valid('timesheets')),
          }
        : {}),
    });
    // The same row, a later and an earlier version of it: no problem.
    assert.deepEqual((await check(files('workers', valid('workers')), same)).lines, []);
    const newer = valid('workers', { status: 'inactive', updated_at: later });
    assert.deepEqual((await check(files('workers', newer), same)).lines, []);
    const storedLater: Stored = { workers: [{ ...stored('workers'), updated_at: later }] };
    assert.deepEqual((await check(files('workers', valid('workers')), storedLater)).lines, []);
    // Other values under the stored updated_at.
    const rival = valid('workers', { status: 'inactive' });
    assert.deepEqual((await check(files('workers', rival), same)).lines, [
      `workers.ndjson:1: updated_at "${AT}" is the stored record's, but other values differ: a changed record needs a later updated_at`,
    ]);
    // A time entry is never changed; the same entry again is fine.
    const entry: Stored = { time_entries: [stored('time_entries')] };
    assert.deepEqual((await check(files('time_entries', valid('time_entries')), entry)).lines, []);
    const changed = valid('time_entries', { quantity_minutes: 60 });
    assert.deepEqual((await check(files('time_entries', changed), entry)).lines, [
      'time_entries.ndjson:1: id "te_1" is already stored with other values: time entries are never changed (a correction adds new rows)',
    ]);
  });
});

/** VALID[table] as the store holds it: in WS, every column present, flags as 0/1. */
function stored(table: ImportTable): Row {
  const row: Row = { workspace_id: WS };
  for (const rule of COLUMN_RULES[table]) {
    if (rule.name === 'workspace_id') continue;
    const value = VALID[table][rule.name];
    row[rule.name] = typeof value === 'boolean' ? Number(value) : ((value as Row[string]) ?? null);
  }
  return row;
}
