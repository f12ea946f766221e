import { randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { seedStore } from '../../src/admin/seed.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.js';
import type { SqlStore } from '../../src/store/sql-store.js';
import { factsDirOf, openReportFacts, writeColumnarFacts } from '../../src/store/open-store.js';
import type { ReportFacts } from '../../src/store/store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createTableSql, type Dialect as SqlDialect } from '../../src/store/dialect.js';
import { REPORT_FACT_TABLES } from '../../src/store/sql/report-facts.js';

export type Dialect = 'sqlite' | 'postgres';
export type ReportEngineName = 'columnar' | 'row';

/** Report tests that compare engines run once per engine in this list. */
export const ENGINES: readonly ReportEngineName[] = ['columnar', 'row'];

/** The throwaway cluster scripts/run-tests.mjs started, when PostgreSQL is available. */
export const TEST_PG_URL = process.env.VMS_READ_TEST_PG_URL;

/** Every store, report and HTTP test runs once per dialect in this list (STYLE.md). */
export const DIALECTS: readonly Dialect[] = TEST_PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * Where the golden tests run: each dialect with the columnar copy's rollups (the default), and
 * SQLite with them off (VMS_READ_ROLLUPS=off), so every golden answer holds both ways.
 */
export const GOLDEN_SETUPS: readonly { dialect: Dialect; rollups: boolean; label: string }[] = [
  ...DIALECTS.map((dialect) => ({ dialect, rollups: true, label: dialect })),
  { dialect: 'sqlite', rollups: false, label: 'sqlite, rollups off' },
];

/**
 * A folder scripts/run-tests.mjs makes for the run and removes after it: the tiny seed as a
 * SQLite file and the columnar copies of the seed, each made once per run by the first test
 * process that needs it and copied by every other (a seed took about 1 s, a columnar copy 1.5 s,
 * and a run opens a few hundred). Without it (a test file run alone) each is made in place.
 */
const TEMPLATES = process.env.VMS_READ_TEST_TEMPLATES;

/**
 * Makes `target` once, whichever process comes first: `make` writes into a folder of this
 * process, which is renamed into place (a rename is atomic; a process that loses the race
 * removes its own). Returns `target`.
 */
async function once(target: string, make: (into: string) => Promise<void>): Promise<string> {
  if (existsSync(target)) return target;
  const into = `${target}.${process.pid}-${randomUUID().slice(0, 8)}`;
  mkdirSync(into, { recursive: true });
  try {
    await make(into);
    try {
      renameSync(into, target);
    } catch (error) {
      if (!existsSync(target)) throw error;
    }
  } finally {
    rmSync(into, { recursive: true, force: true });
  }
  return target;
}

/** Copies a folder's files (not its folders) into another, made when missing. */
function copyFiles(from: string, to: string, which: (name: string) => boolean = () => true) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from))
    if (which(name)) copyFileSync(join(from, name), join(to, name));
}

/** The tiny seed as a SQLite file (`test.db` in the returned folder), once per run. */
const sqliteTemplate = (templates: string) =>
  once(join(templates, 'sqlite'), async (into) => {
    const store = new SqliteStore(join(into, 'test.db'));
    try {
      await store.migrate();
      await seedStore(store, TINY);
    } finally {
      await store.close();
    }
    // Only the database itself is copied: its side files (-oauth, -audit) are made on open.
    for (const name of readdirSync(into)) if (name !== 'test.db') rmSync(join(into, name));
  });

export const AS_OF = '2026-06-30';
export const TINY = { scale: 'tiny', seed: 7, asOf: AS_OF } as const;
const TEMPLATE = 'vms_tiny_template';

/** A seeded test database: its store, its `--db` value, raw SQL for expectations, cleanup. */
export interface TestDatabase {
  dialect: Dialect;
  store: SqlStore;
  /** What `--db` takes for this database (a file path or a postgres:// URL). */
  db: string;
  /** Raw SQL with `?` placeholders, written in the SQL both databases accept; integers as numbers. */
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  one<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T>;
  drop(): Promise<void>;
}

function adminUrl(database: string): string {
  const url = new URL(TEST_PG_URL as string);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Integers and numerics as numbers, for expectations only (the product reads them as text). */
const numericTypes = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 20 || oid === 1700
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format),
};

/** Seeds the tiny template once per cluster (other test processes wait on the lock). */
async function ensureTemplate(admin: pg.Client): Promise<void> {
  await admin.query('SELECT pg_advisory_lock(4242)');
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE]);
    if (exists.rowCount) return;
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    const store = new PostgresStore(adminUrl(TEMPLATE));
    try {
      await store.migrate();
      await seedStore(store, TINY);
    } finally {
      await store.close();
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(4242)');
  }
}

/** `all` and `one` over a function that runs raw SQL with `?` placeholders. */
function rawQueries(
  query: (sql: string, params: unknown[]) => Promise<unknown[]>,
): Pick<TestDatabase, 'all' | 'one'> {
  const all = async <T>(sql: string, ...params: unknown[]) => (await query(sql, params)) as T[];
  return {
    all,
    one: async <T>(sql: string, ...params: unknown[]) => (await all<T>(sql, ...params))[0],
  };
}

export async function openTestDatabase(dialect: Dialect, seeded = true): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    // A file, not :memory:, because report queries run on worker threads with their own connections.
    const dir = mkdtempSync(join(tmpdir(), 'vms-read-test-'));
    const db = join(dir, 'test.db');
    if (seeded && TEMPLATES) copyFiles(await sqliteTemplate(TEMPLATES), dir);
    const store = new SqliteStore(db);
    await store.migrate();
    if (seeded && !TEMPLATES) await seedStore(store, TINY);
    return {
      ...rawQueries(async (sql, params) => store.all(sql, params)),
      dialect,
      store,
      db,
      drop: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!TEST_PG_URL) throw new Error('no PostgreSQL test cluster (VMS_READ_TEST_PG_URL)');
  const name = `t_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    if (seeded) await ensureTemplate(admin);
    // FILE_COPY copies the template's files: 50 ms of the tiny seed's 37 MB where PostgreSQL
    // 15's default, WAL_LOG, writes each block through the log (110-140 ms, a core's work).
    await admin.query(
      `CREATE DATABASE ${name} TEMPLATE ${seeded ? TEMPLATE : 'template1'} STRATEGY FILE_COPY`,
    );
  } finally {
    await admin.end();
  }
  const db = adminUrl(name);
  const store = new PostgresStore(db);
  await store.migrate();
  const raw = new pg.Pool({ connectionString: db, types: numericTypes, max: 2 });
  // DROP DATABASE … WITH (FORCE) may end a connection the pool is still closing: not an error.
  raw.on('error', () => {});
  return {
    ...rawQueries(
      async (sql, params) => (await raw.query(postgresDialect.placeholders(sql), params)).rows,
    ),
    dialect,
    store,
    db,
    drop: async () => {
      await raw.end();
      await store.close();
      const cleanup = new pg.Client({ connectionString: TEST_PG_URL });
      await cleanup.connect();
      await cleanup
        .query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        .finally(() => cleanup.end());
    },
  };
}

export type TestFacts = ReportFacts & { close(): Promise<void> };

/**
 * What a service over a test database reads reports from: the columnar copy (in a folder of its
 * own that closing removes) or, for `row`, the store itself. `asSeeded`: the database is the tiny
 * seed as made, unchanged, so the copy is the run's one copy of the seed (TEMPLATES), copied;
 * otherwise it is written now from the database.
 */
export async function openTestFacts(
  database: TestDatabase,
  engine: ReportEngineName,
  settings: { rollups?: boolean; asSeeded?: boolean } = {},
): Promise<TestFacts> {
  if (engine === 'row') return openReportFacts(database.store, database.db, { engine });
  const root = mkdtempSync(join(tmpdir(), 'vms-read-facts-'));
  const { store, db, dialect } = database;
  if (settings.asSeeded && TEMPLATES) {
    // The seed's base copy, written once from the first such database (every copy of the seed
    // holds the same epoch and version, which the base's name carries).
    const base = await once(join(TEMPLATES, `facts-${dialect}`), async (into) => {
      await writeColumnarFacts(store, db, { root: into });
    });
    const [own] = readdirSync(base);
    copyFiles(join(base, own), factsDirOf(db, root), (name) => /^base-.*\.duckdb$/.test(name));
  } else await writeColumnarFacts(store, db, { root });
  const facts = await openReportFacts(store, db, { root, rollups: settings.rollups });
  return {
    reportConcurrency: facts.reportConcurrency,
    reportEngine: () => facts.reportEngine(),
    fallbackEngine: facts.fallbackEngine && ((failure) => facts.fallbackEngine!(failure)),
    latestConfig: (w) => facts.latestConfig(w),
    catalogStamp: (w) => facts.catalogStamp(w),
    catalogEntries: (w) => facts.catalogEntries(w),
    close: async () => {
      await facts.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The report fact tables of versions 2-17 in place of version 18's views: what a test that takes a
 * database back to an older version runs first, so that migrating again meets tables, as it did.
 */
export function factTablesAgain(dialect: SqlDialect): string[] {
  return [
    ...REPORT_FACT_TABLES.map((t) => `DROP VIEW ${t.name}`),
    ...REPORT_FACT_TABLES.map((t) => createTableSql(dialect, t)),
  ];
}
