/**
 * Test support for the seed tests: a sink that keeps every row in memory (fine at tiny scale) and
 * records the order of insert calls, plus a shared tiny seed so each test file generates it once.
 */
import { generateSeed, type SeedOptions, type SeedSummary } from '../../src/seed/generate.js';
import type { Row, SeedSink } from '../../src/store/sink.js';
import { TABLES, type DataTable } from '../../src/store/schema.js';
import { columnNames } from '../../src/store/table.js';

export const TINY: SeedOptions = { seed: 7, scale: 'tiny', asOf: '2026-06-30' };

export class MemorySink implements SeedSink {
  readonly rows = new Map<DataTable, Row[]>();
  /** One entry per insert call: the table and the workspace of its rows. */
  readonly calls: { table: DataTable; workspace: string; size: number }[] = [];

  async insert(table: DataTable, rows: Row[]): Promise<void> {
    const list = this.rows.get(table) ?? [];
    for (const row of rows) list.push(row);
    this.rows.set(table, list);
    const workspace = String(table === 'workspaces' ? rows[0]?.id : rows[0]?.workspace_id);
    this.calls.push({ table, workspace, size: rows.length });
  }

  table(name: DataTable): Row[] {
    return this.rows.get(name) ?? [];
  }

  /** Rows of a table belonging to one workspace. */
  of(name: DataTable, workspaceId: string): Row[] {
    const key = name === 'workspaces' ? 'id' : 'workspace_id';
    return this.table(name).filter((r) => r[key] === workspaceId);
  }
}

export interface Seeded {
  sink: MemorySink;
  summary: SeedSummary;
}

let shared: Promise<Seeded> | undefined;

/** The tiny seed, generated once per test file. */
export function tinySeed(): Promise<Seeded> {
  shared ??= (async () => {
    const sink = new MemorySink();
    const summary = await generateSeed(TINY, sink);
    return { sink, summary };
  })();
  return shared;
}

/** Column names of every table, read from the DDL, in declaration order. */
export function schemaColumns(): Map<string, string[]> {
  return new Map([...TABLES].map(([name, table]) => [name, columnNames(table)]));
}

/** Groups rows by the value of a column. */
export function groupBy(rows: Row[], column: string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = String(row[column]);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

export const WORKSPACE_IDS = ['ws_business', 'ws_team', 'ws_enterprise'];

export const INSTRUCTION = /ignore previous instructions/i;
export const EMOJI = /\p{Extended_Pictographic}/u;
export const RTL = /[\u0590-\u05FF\u0600-\u06FF]/;
export const ZERO_WIDTH = /[\u200B\u200D]/;
