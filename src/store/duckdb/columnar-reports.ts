import type { DataVersion, FactSource, ReportEngine, ReportFacts } from '../store.js';
import type { DuckdbFacts, DuckdbSettings } from './duckdb-facts.js';
import { removeStale } from './facts-files.js';
import { openLiveCopy, publishBase, removeCopy } from './live-copies.js';
import { PatchApplyError, patchColumnarFacts } from './patch-facts.js';

export interface ColumnarOptions extends DuckdbSettings {
  /** Where the copies live: `<file>.facts` beside a SQLite file, VMS_READ_FACTS_DIR for PostgreSQL. */
  dir: string;
  /** Write a base when none can be patched to the current version (serve); default true. */
  build?: boolean;
  /** Told of a copy opened, patched, rebuilt or failing: one line each (a failure once per cause). */
  log?: (message: string, failure?: unknown) => void;
  /** How often the row store's version is read, to catch up before a report asks; 0: never. */
  pollMs?: number;
  /** How long a report waits for a patch in progress before the row store answers it. */
  waitMs?: number;
  /** Changed rows, as a share of the copy's, above which a new base is written rather than a patch. */
  maxShare?: number;
}

export const DEFAULT_POLL_MS = 500;
export const DEFAULT_WAIT_MS = 3000;
export const DEFAULT_MAX_SHARE = 0.25;
/** Rows patched since its base, as a share of its rows, past which a live copy becomes a base. */
const PUBLISH_SHARE = 0.1;
/** After a failure, attempts wait 1 s, then twice as long each time, up to a minute. */
const RETRY_MS = { first: 1000, most: 60_000 };

const holds = (facts: DuckdbFacts, version: DataVersion) =>
  facts.version.epoch === version.epoch && facts.version.version >= version.version;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The report facts as the service reads them (DESIGN §4.11): this process's own columnar copy
 * (DuckDB), kept at the row store's data version by patches that apply what changed since the
 * copy's version. A report reads the row store's version; when the copy holds it, the copy
 * answers; when a patch can bring it there, the report waits for the patch (up to `waitMs`); when
 * it cannot (no copy yet, another epoch, a change too large to patch, or a failure) the row store
 * answers, exact and slower, while a copy is prepared in the background. So no report is
 * answered from facts older than the row store. A failure to write or patch the copy (a full
 * disk, a file-size limit) is logged once per cause, cleaned up and retried with a growing pause.
 * The catalog's inputs always come from the row store.
 */
export class ColumnarReports implements ReportFacts {
  readonly reportConcurrency: number;
  private live: DuckdbFacts | null = null;
  private job: Promise<void> | null = null;
  /**
   * Settles when the running job has patched the copy or found it cannot (and goes on to write
   * a new one): what a report waits for, never for a whole copy being written.
   */
  private patched: Promise<void> | null = null;
  private settlePatch: (() => void) | null = null;
  private retryAt = 0;
  /** Attempts failed in a row since the last success. */
  private failures = 0;
  /** Rows patched into the live copy since the base it was copied from. */
  private patchedSinceBase = 0;
  private publishFailed = false;
  private lastQueryFailureLogged = 0;
  private closed = false;
  private readonly poller: NodeJS.Timeout | null;

  constructor(
    private readonly rows: ReportFacts & FactSource,
    private readonly options: ColumnarOptions,
  ) {
    this.reportConcurrency = rows.reportConcurrency;
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.poller = pollMs > 0 ? setInterval(() => void this.poll(), pollMs).unref() : null;
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

  /** The copy's engine when it holds the row store's version (after a patch, if one is quick), else the row store's. */
  async reportEngine(): Promise<ReportEngine> {
    const now = await this.rows.dataVersion();
    const live = this.live;
    if (live && holds(live, now)) return live.engine;
    const job = this.catchUp();
    if (live && live.version.epoch === now.epoch) {
      await Promise.race([job, this.patched ?? job, delay(this.options.waitMs ?? DEFAULT_WAIT_MS)]);
      const caught = this.live;
      if (caught && holds(caught, now)) return caught.engine;
    }
    return this.rows.reportEngine();
  }

  /**
   * The row store, for a query the copy failed (out of memory, say): exact, slower. Logged at most
   * once a minute, with the cause.
   */
  async fallbackEngine(failure: unknown): Promise<ReportEngine> {
    if (Date.now() - this.lastQueryFailureLogged > 60_000) {
      this.lastQueryFailureLogged = Date.now();
      this.options.log?.(
        'a report query failed on the columnar copy; the row store answered it (logged at most once a minute)',
        failure,
      );
    }
    return this.rows.reportEngine();
  }

  /**
   * Prepares the copy for the current version before the first report asks (at start), after
   * removing what processes that are gone left in the folder (partial files, live copies).
   */
  async warm(): Promise<void> {
    removeStale(this.options.dir, null);
    await this.catchUp();
  }

  /** The version the copy holds now, or null without one (for tests and the log). */
  get copyVersion(): DataVersion | null {
    return this.live?.version ?? null;
  }

  private async poll(): Promise<void> {
    if (this.job || this.closed || Date.now() < this.retryAt) return;
    try {
      const now = await this.rows.dataVersion();
      if (!this.live || !holds(this.live, now)) await this.catchUp();
    } catch {
      // The row store is out of reach: requests answer 503 and say so; the next tick tries again.
    }
  }

  /** The one piece of copy work at a time: joins the running one or starts the next. */
  private catchUp(): Promise<void> {
    if (this.closed || Date.now() < this.retryAt) return Promise.resolve();
    if (!this.job) {
      this.patched = new Promise((resolve) => (this.settlePatch = resolve));
      this.job = this.bringCurrent()
        .then(() => this.succeeded())
        .catch((error: unknown) => this.failed(error))
        .finally(() => {
          this.settlePatch?.();
          this.job = null;
        });
    }
    return this.job;
  }

  /** A copy at the row store's version: patched, or opened from a base (written first if need be). */
  private async bringCurrent(): Promise<void> {
    if (this.live) {
      const outcome = await patchColumnarFacts(this.live, this.rows, {
        dir: this.options.dir,
        maxShare: this.options.maxShare ?? DEFAULT_MAX_SHARE,
      });
      if (outcome.kind === 'patched') {
        this.options.log?.(
          `columnar report facts patched to version ${outcome.version.version}: ${outcome.rows} rows in ${outcome.ms} ms`,
        );
        this.patchedSinceBase += outcome.rows;
        await this.publishBase();
      }
      if (outcome.kind !== 'rebuild') return;
      // Reports waiting for this patch stop waiting: the row store answers them meanwhile.
      this.settlePatch?.();
      this.options.log?.(
        {
          epoch: 'columnar report facts: the data was rebuilt or replaced; a new copy is written',
          size: 'columnar report facts: more changed than a patch is worth; a new copy is written',
          horizon:
            'columnar report facts: the copy is older than the deletions kept; a new copy is written',
        }[outcome.reason],
      );
      await this.dropLive();
      await this.openFromBase(true);
    } else {
      await this.openFromBase(false);
    }
    // A base is a version or more behind by the time it is open: patch the rest.
    if (this.live) await this.bringCurrent();
  }

  /** Publishes the live copy as a base once its patches pass a tenth of it (live-copies.ts). */
  private async publishBase(): Promise<void> {
    const live = this.live;
    if (!live) return;
    const rows = Object.values(await live.tableRows()).reduce((a, b) => a + b, 0);
    if (this.patchedSinceBase <= PUBLISH_SHARE * rows) return;
    const published = await publishBase(live, this.options.dir).catch((error: unknown) => {
      if (!this.publishFailed)
        this.options.log?.(
          'columnar report facts: a new base could not be written; the older one stays',
          error,
        );
      this.publishFailed = true;
      return null;
    });
    if (published === null) return;
    this.patchedSinceBase = 0;
    this.options.log?.(`columnar report facts published as a new base: ${published}`);
  }

  /** Opens a live copy from a base (written first when `fresh` or none: live-copies.ts). */
  private async openFromBase(fresh: boolean): Promise<void> {
    const facts = await openLiveCopy(this.rows, this.options, this.reportConcurrency, fresh);
    if (!facts) return;
    if (this.closed) {
      await facts.close();
      removeCopy(facts.path);
      return;
    }
    this.live = facts;
    this.patchedSinceBase = 0;
  }

  private succeeded(): void {
    if (this.failures > 0)
      this.options.log?.(
        `columnar report facts are in use again, after ${this.failures} failed attempt${this.failures === 1 ? '' : 's'}`,
      );
    this.failures = 0;
    this.retryAt = 0;
  }

  /**
   * Logs the first failure of a run of them, with its cause (the next attempts fail quietly
   * until one succeeds, which is logged), drops the copy when DuckDB failed writing it (it may be
   * damaged; a failure before that leaves it as it was), and pauses before the next attempt
   * (1 s, doubling, at most a minute): meanwhile the row store answers.
   */
  private async failed(error: unknown): Promise<void> {
    if (this.failures === 0)
      this.options.log?.(
        'columnar report facts could not be written or patched; the row store answers reports until a retry succeeds',
        error,
      );
    this.failures++;
    this.retryAt = Date.now() + Math.min(RETRY_MS.most, RETRY_MS.first * 2 ** (this.failures - 1));
    if (error instanceof PatchApplyError) await this.dropLive();
  }

  private async dropLive(): Promise<void> {
    const live = this.live;
    this.live = null;
    if (!live) return;
    await live.close().catch(() => {});
    removeCopy(live.path);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    await this.job;
    await this.dropLive();
  }
}
