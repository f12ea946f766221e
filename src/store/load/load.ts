import type { DataTable } from '../schema.js';
import type { Row, SeedSink } from '../sink.js';
import { DEFAULT_TOMBSTONE_DAYS, sweepTombstones } from '../sql/tombstones.js';
import type { Deletion } from './deletions.js';
import { LoadWriter, type LoadCounts } from './load-writer.js';
import { Staging } from './staging.js';
import type { WriteSession } from './write-session.js';

export type { LoadCounts } from './load-writer.js';
export type { Deletion } from './deletions.js';

/** What a finished load did. */
export interface LoadResult {
  /** False when every row was already stored as given (or older): nothing was written. */
  changed: boolean;
  /** The data version after the load: one above the one before it, or that one when unchanged. */
  version: number;
  counts: Record<DataTable, LoadCounts>;
}

/**
 * An open load (seed or import): batches go in through `insert` (the SeedSink the generator
 * writes to), `finish` commits them all, `abort` none.
 */
export interface Load extends SeedSink {
  /**
   * A batch whose stored rows the caller has read already, in this load's view (an importer
   * judges them first, stored-rows.ts): every row of `held` whose id is among the batch's, and
   * none stored that is missing from it. Spares the writer reading them again.
   */
  insertRead(table: DataTable, rows: Row[], held: ReadonlyMap<string, Row>): Promise<void>;
  /**
   * Where an importer stages its rows to check them as sets before writing them (PostgreSQL:
   * load/staging.ts); null where checking each batch as it arrives costs less (SQLite, whose
   * queries are calls within the process).
   */
  readonly staging?: Staging | null;
  /** Deletions of records of one workspace (DESIGN §4.13), applied after every row when the load finishes. */
  remove(workspaceId: string, deletions: readonly Deletion[]): Promise<void>;
  finish(): Promise<LoadResult>;
  abort(): Promise<void>;
}

/**
 * A write transaction that holds the data version (no other load can commit a version until it
 * ends): what each store opens its own way (SQLite: BEGIN IMMEDIATE; PostgreSQL: the version row
 * locked FOR UPDATE) and the load, `facts refresh` and the clearing of data run in.
 */
export interface VersionedWrite {
  session: WriteSession;
  /** The data version stored when the transaction began. */
  current: number;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** The data version as stored in `meta`. */
export const SET_DATA_VERSION = "UPDATE meta SET value = ? WHERE key = 'data_version'";

/** A load over a versioned write: the writer's rows, then the new version, committed together. */
export interface LoadOptions {
  /** How long the feed keeps tombstones (VMS_READ_TOMBSTONE_DAYS): older ones go when the load commits. */
  tombstoneDays?: number;
}

export async function startLoad(write: VersionedWrite, options: LoadOptions = {}): Promise<Load> {
  const writer = new LoadWriter(write.session, write.current + 1);
  let ended = false;
  try {
    await writer.start();
  } catch (error) {
    ended = true;
    await write.rollback();
    throw error;
  }
  return {
    insert: (table, rows) => writer.write(table, rows),
    insertRead: (table, rows, held) => writer.write(table, rows, held),
    staging: write.session.dialect.name === 'postgres' ? new Staging(write.session, writer) : null,
    remove: (workspaceId, deletions) => writer.departures.deleteRecords(workspaceId, deletions),
    async finish() {
      await writer.finishWrites();
      if (writer.changed) {
        await write.session.run(SET_DATA_VERSION, [String(writer.version)]);
        await sweepTombstones(
          write.session,
          options.tombstoneDays ?? DEFAULT_TOMBSTONE_DAYS,
          new Date(writer.clock),
          write.session.dialect.upsert('meta', ['key', 'value'], ['key']),
        );
      }
      await write.commit();
      ended = true;
      return {
        changed: writer.changed,
        version: writer.changed ? writer.version : write.current,
        counts: writer.counts,
      };
    },
    async abort() {
      if (ended) return;
      ended = true;
      await write.rollback();
    },
  };
}
