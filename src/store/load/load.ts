import type { DataTable } from '../schema.js';
import type { SeedSink } from '../sink.js';
import { LoadWriter, type LoadCounts } from './load-writer.js';
import type { WriteSession } from './write-session.js';

export type { LoadCounts } from './load-writer.js';

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
export async function startLoad(write: VersionedWrite): Promise<Load> {
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
    async finish() {
      await writer.finishWrites();
      if (writer.changed) await write.session.run(SET_DATA_VERSION, [String(writer.version)]);
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
