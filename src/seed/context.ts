/**
 * Per-workspace state shared by the generators: the seed coordinates, the calendar, the program
 * configuration, the edge-case months and the batching writers that stream rows to the sink.
 */
import type { ProgramConfig } from '../store/program-config.js';
import type { DataTable } from '../store/schema.js';
import type { Row, SeedSink } from '../store/sink.js';
import type { Calendar } from './calendar.js';
import { edgeMonths, type EdgeMonths } from './edge-cases.js';
import { Rng } from './random.js';
import type { ScaleSpec } from './scales.js';
import { programConfig, type WorkspaceDef } from './workspaces.js';

/** Buffers rows of one table and hands them to the sink in batches; awaiting keeps back-pressure. */
export class TableWriter {
  private rows: Row[] = [];
  count = 0;

  constructor(
    private readonly sink: SeedSink,
    readonly table: DataTable,
    private readonly batchSize: number,
  ) {}

  /** Adds a row; true when the batch is full and the caller must `await flush()`. */
  push(row: Row): boolean {
    this.rows.push(row);
    this.count++;
    return this.rows.length >= this.batchSize;
  }

  async flush(): Promise<void> {
    if (this.rows.length === 0) return;
    // A fresh array per batch: the sink may keep the one it was given.
    const batch = this.rows;
    this.rows = [];
    await this.sink.insert(this.table, batch);
  }
}

export class WorkspaceRun {
  readonly counts: Record<string, number> = {};
  readonly config: ProgramConfig;
  readonly edges: EdgeMonths;

  constructor(
    readonly seed: number,
    readonly ws: WorkspaceDef,
    readonly cal: Calendar,
    readonly scale: ScaleSpec,
    readonly workerCount: number,
    private readonly sink: SeedSink,
  ) {
    this.config = programConfig(ws);
    this.edges = edgeMonths(cal);
  }

  /** The random stream for one record, addressed by stream and coordinates. */
  rng(stream: number, a = 0, b = 0): Rng {
    return Rng.at(this.seed, this.ws.salt, stream, a, b);
  }

  /** Record id: table prefix, workspace short name, zero-padded sequence (`ts_ent_0001234`). */
  id(prefix: string, seq: number): string {
    return `${prefix}_${this.ws.short}_${String(seq).padStart(7, '0')}`;
  }

  writer(table: DataTable): TableWriter {
    return new TableWriter(this.sink, table, this.scale.batchSize);
  }

  /** Flushes the last batch and records the table's row count for the summary. */
  async finish(writer: TableWriter): Promise<void> {
    await writer.flush();
    this.counts[writer.table] = (this.counts[writer.table] ?? 0) + writer.count;
  }
}
