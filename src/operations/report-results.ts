import { LRUCache } from 'lru-cache';
import type { ReportEngine, Row } from '../store/store.js';

/**
 * The size of all cached results at most, counted as their JSON text (their objects take two to
 * three times that in memory): the cache stays within a few tens of megabytes.
 */
export const REPORT_RESULT_BYTES = 8 * 1024 * 1024;
/** Results held at most. */
export const REPORT_RESULT_ENTRIES = 1_000;

/**
 * Results of report queries, so a dashboard reloading its tiles costs a lookup. A result is
 * keyed by the engine, the data stamp its facts hold and the compiled SQL with its parameters.
 * The SQL carries everything else the answer depends on: the workspace, the normalised query,
 * the catalog's metric definitions and pay codes, the row window, today's date where a metric
 * reads it. So a new load (a new stamp) or a catalog change that alters the SQL misses, and
 * nothing else does: the cache needs no invalidation and never answers from older data. It is
 * bounded by entries and by size (least recently used dropped first); a result larger than the
 * whole bound is not kept. Identical queries that
 * arrive together run once.
 */
export class ReportResultCache {
  private readonly results = new LRUCache<string, Row[]>({
    max: REPORT_RESULT_ENTRIES,
    maxSize: REPORT_RESULT_BYTES,
    // Measured once per result stored (a miss), never on a hit; bigint counts as its digits.
    sizeCalculation: (rows) =>
      JSON.stringify(rows, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).length + 1,
  });
  private readonly running = new Map<string, Promise<Row[]>>();
  hits = 0;

  /** `enabled: false` runs every query (benchmarks of the engines themselves). */
  constructor(private readonly enabled = true) {}

  /** The cached result, or `run`'s (shared with an identical query already running). */
  async get(
    engine: ReportEngine,
    sql: string,
    params: readonly unknown[],
    run: () => Promise<Row[]>,
  ): Promise<Row[]> {
    if (!this.enabled) return run();
    const key = JSON.stringify([engine.name, engine.dataStamp, sql, params]);
    const hit = this.results.get(key) ?? this.running.get(key);
    if (hit) {
      this.hits++;
      return hit;
    }
    const pending = run();
    this.running.set(key, pending);
    try {
      const rows = await pending;
      this.results.set(key, rows);
      return rows;
    } finally {
      this.running.delete(key);
    }
  }

  get size(): number {
    return this.results.size;
  }
}
