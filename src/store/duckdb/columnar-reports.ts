import { existsSync } from 'node:fs';
import type { FactSource, ReportEngine, ReportFacts } from '../store.js';
import { buildColumnarFacts, factsPath } from './build-facts.js';
import { DuckdbFacts, type DuckdbSettings } from './duckdb-facts.js';

export interface ColumnarOptions extends DuckdbSettings {
  /** Where the copies live: `<file>.facts` beside a SQLite file, VMS_READ_FACTS_DIR for PostgreSQL. */
  dir: string;
  /** Write the copy in the background when none holds the current stamp (serve); default true. */
  build?: boolean;
  /** Told of a copy opened, built or failed: one line each. */
  log?: (message: string, failure?: unknown) => void;
}

/**
 * The report facts as the service reads them: every report is answered by the columnar copy
 * (DuckDB) that holds the row store's current data stamp, read on each report. When no copy
 * holds it (data loaded by another process, a new database, a first start) the row store
 * answers, exact and slower, while the copy is written in the background; the next report
 * after it is in place uses it. So no report is answered from facts older than the row store.
 * The catalog's inputs always come from the row store.
 */
export class ColumnarReports implements ReportFacts {
  readonly reportConcurrency: number;
  private current: DuckdbFacts | null = null;
  private opening: { stamp: string; done: Promise<DuckdbFacts | null> } | null = null;
  private building: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly rows: ReportFacts & FactSource,
    private readonly options: ColumnarOptions,
  ) {
    this.reportConcurrency = rows.reportConcurrency;
  }

  latestConfig(workspaceId: string) {
    return this.rows.latestConfig(workspaceId);
  }

  catalogStamp(workspaceId: string) {
    return this.rows.catalogStamp(workspaceId);
  }

  catalogEntries(workspaceId: string) {
    return this.rows.catalogEntries(workspaceId);
  }

  async reportEngine(): Promise<ReportEngine> {
    const row = await this.rows.reportEngine();
    const facts = await this.factsAt(row.dataStamp);
    return facts?.engine ?? row;
  }

  /** Opens the copy for the current stamp before the first report asks (at start). */
  async warm(): Promise<void> {
    await this.factsAt(await this.rows.dataStamp());
  }

  /** The open copy holding `stamp`, opening its file if it exists, else null (and a build starts). */
  private async factsAt(stamp: string): Promise<DuckdbFacts | null> {
    if (this.current?.dataStamp === stamp) return this.current;
    if (this.opening?.stamp !== stamp) {
      const done = this.open(stamp);
      this.opening = { stamp, done };
      void done.finally(() => {
        if (this.opening?.done === done) this.opening = null;
      });
    }
    return this.opening.done;
  }

  private async open(stamp: string): Promise<DuckdbFacts | null> {
    // A copy is being written: the row store answers until it is in place.
    if (this.building) return null;
    const path = factsPath(this.options.dir, stamp);
    if (!existsSync(path)) {
      this.build();
      return null;
    }
    try {
      const facts = await DuckdbFacts.open(path, stamp, this.reportConcurrency, this.options);
      if (this.closed) {
        await facts.close();
        return null;
      }
      const previous = this.current;
      this.current = facts;
      void previous?.close();
      this.options.log?.(`columnar report facts opened: ${path}`);
      return facts;
    } catch (error) {
      this.options.log?.(`columnar report facts could not be opened: ${path}`, error);
      this.build(true);
      return null;
    }
  }

  /** Writes a copy for the row store's stamp, one build at a time; failures are logged. */
  private build(force = false): void {
    if (this.options.build === false || this.building || this.closed) return;
    this.building = buildColumnarFacts(this.rows, this.options.dir, { ...this.options, force })
      .then((built) =>
        this.options.log?.(`columnar report facts written: ${built.path} in ${built.ms} ms`),
      )
      .catch((error: unknown) => this.options.log?.('columnar report facts not written', error))
      .finally(() => (this.building = null));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.building;
    await this.current?.close();
    this.current = null;
  }
}
