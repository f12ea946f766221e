import type { Principal } from '../auth/principal.js';
import type { RevealedRecord } from '../operations/revelation.js';
import type { CursorCodec } from '../paging/cursor.js';
import type { FeedType } from '../store/sql/change-log.js';
import type { ResourceReads, Row } from '../store/store.js';
import type { EntitySet } from './entity-model.js';

/** What a feed answer is read with, where it is written, and what it revealed. */

export interface FeedContext {
  store: ResourceReads;
  principal: Principal;
  cursors: CursorCodec;
  /** The service root as clients reach it, ending in `/`. */
  base: string;
  version: '4.0' | '4.01';
  /** Rows per page (`Prefer: odata.maxpagesize`, default 1,000). */
  pageSize: number;
  /** A store read within the request's time limit. */
  bounded<T>(read: Promise<T>): Promise<T>;
}

/** Where an answer's text goes: the connection (awaiting its drain) or a buffer. */
export type Sink = (text: string) => void | Promise<void>;

/** The records an answer carried, by their type and id (entries and lines under their parent). */
export class Revealed {
  private readonly records = new Map<string, RevealedRecord>();
  add(set: EntitySet, row: Row, personal: boolean): void {
    const type: FeedType = set.feedType;
    const id = String(row[set.byName.get(set.revealedAs)?.column ?? 'id']);
    const key = `${type}\u0000${id}`;
    const known = this.records.get(key);
    if (known) {
      if (personal) known.personalData = true;
      return;
    }
    const record: RevealedRecord = { type, id };
    const worker = set.name === 'Workers' ? row.id : (row.worker_id ?? row.worker_ref);
    if (typeof worker === 'string') record.worker = worker;
    if (personal) record.personalData = true;
    this.records.set(key, record);
  }
  /** A record that left this reader: by its type and id alone. */
  addTombstone(type: FeedType, id: string): void {
    const key = `${type}\u0000${id}`;
    if (!this.records.has(key)) this.records.set(key, { type, id });
  }
  list(): RevealedRecord[] {
    return [...this.records.values()];
  }
}
