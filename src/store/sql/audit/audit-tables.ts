/**
 * The access trail's tables (DESIGN §4.17). Each server process writes a chain of its own
 * (`audit_chains`): its events in order (`seq` from 1), each hashed over the one before, so that
 * several instances over one database never wait on one another to append. What a query filters
 * on is in columns of its own; the event itself is its canonical JSON, the bytes its hash covers.
 *
 * - `audit_chains`: one row per chain: when it began, and the anchor of its first kept event (the
 *   `prev` of the oldest event retention left; the chain's own start before that).
 * - `audit_events`: one row per answered request: its chain and place, when, its workspace, client
 *   and operation, the records it revealed as a set (`revealed_set`), the event, `prev` and `hash`.
 *   An event's JSON names its records by set (`"revealed":{"set":id}`; an event written before
 *   schema 19 holds them inline). The table has its key alone: no index per event (issue 59).
 * - `audit_sets`: a set's records (their canonical JSON, whose digest is the set's id), written
 *   once a day per set: a page of 50 read again and again is one row a day, not 4 kB an event.
 * - `audit_set_workers`: "who saw this worker" as one index range: the workers each set of
 *   revealed records names. A set is the records an answer carried, in one workspace on one UTC
 *   day (its id a digest of the three): an answer given again (a list page read every minute, a
 *   cached repeat) names the same set, so its workers are written once a day, not once per
 *   request. Sets of a day go with that day's events (retention).
 * - `audit_minutes`: what searches find events by, built per batch (issue 59): for each batch,
 *   workspace and UTC minute, the range of places in the chain its events hold and which
 *   clients, operations and workers appear there (JSON arrays; null, in a trail migrated from
 *   before, for "any"). A search reads the rows of its workspace and minutes, then the events in
 *   their ranges, which it filters exactly: one row per batch, not three B-tree entries per event.
 */
import type { Table } from '../../table.js';

export const AUDIT_CHAINS_TABLE: Table = {
  name: 'audit_chains',
  columns: {
    chain_id: 'text',
    started_at: 'bigint!',
    anchor: 'text!',
    first_seq: 'bigint!',
  },
  primaryKey: ['chain_id'],
};

export const AUDIT_EVENTS_TABLE: Table = {
  name: 'audit_events',
  columns: {
    chain_id: 'text',
    seq: 'bigint',
    at: 'bigint!',
    workspace_id: 'text',
    client_id: 'text',
    operation: 'text',
    revealed_set: 'text',
    event: 'text!',
    prev: 'text!',
    hash: 'text!',
  },
  primaryKey: ['chain_id', 'seq'],
};

export const AUDIT_SETS_TABLE: Table = {
  name: 'audit_sets',
  columns: {
    /** The UTC day of the events that named it, as days since the epoch (retention). */
    day: 'integer!',
    set_id: 'text!',
    /** The records' canonical JSON: its digest is `set_id` (verify checks it). */
    records: 'text!',
  },
  primaryKey: ['day', 'set_id'],
};

export const AUDIT_MINUTES_TABLE: Table = {
  name: 'audit_minutes',
  columns: {
    /** '' for events of no workspace. */
    workspace_id: 'text!',
    /** The UTC minute, as minutes since the epoch. */
    minute: 'bigint!',
    chain_id: 'text!',
    first_seq: 'bigint!',
    last_seq: 'bigint!',
    clients: 'text',
    operations: 'text',
    workers: 'text',
  },
  primaryKey: ['workspace_id', 'minute', 'chain_id', 'first_seq'],
  clustered: true,
  indexes: {
    audit_minutes_minute: { columns: ['minute'] },
    audit_minutes_chain: { columns: ['chain_id', 'first_seq'] },
  },
};

export const AUDIT_SET_WORKERS_TABLE: Table = {
  name: 'audit_set_workers',
  columns: {
    workspace_id: 'text!',
    worker_id: 'text!',
    /** The set's UTC day, as days since the epoch: retention removes sets by day. */
    day: 'integer!',
    set_id: 'text!',
  },
  primaryKey: ['workspace_id', 'worker_id', 'day', 'set_id'],
  clustered: true,
  indexes: { audit_set_workers_day: { columns: ['day'] } },
};

export const AUDIT_TABLES: readonly Table[] = [
  AUDIT_CHAINS_TABLE,
  AUDIT_EVENTS_TABLE,
  AUDIT_SETS_TABLE,
  AUDIT_SET_WORKERS_TABLE,
  AUDIT_MINUTES_TABLE,
];

/**
 * Version 12's tables (PostgreSQL's migration 12, a `-audit` file of user_version 1), as they were:
 * an `audit_reveals` row per worker per event. `REVEALS_TO_SETS` moves such a trail to sets.
 */
const AUDIT_EVENTS_12: Table = {
  ...AUDIT_EVENTS_TABLE,
  // Schema 13 added `audit_events_set`; schema 19 (MINUTES_FROM_EVENTS) dropped the three.
  columns: Object.fromEntries(
    Object.entries(AUDIT_EVENTS_TABLE.columns).filter(([name]) => name !== 'revealed_set'),
  ),
  indexes: {
    audit_events_workspace: { columns: ['workspace_id', 'at'] },
    audit_events_at: { columns: ['at'] },
  },
};
const AUDIT_REVEALS_12: Table = {
  name: 'audit_reveals',
  columns: {
    workspace_id: 'text!',
    worker_id: 'text!',
    at: 'bigint!',
    chain_id: 'text!',
    seq: 'bigint!',
  },
  primaryKey: ['workspace_id', 'worker_id', 'at', 'chain_id', 'seq'],
  clustered: true,
  indexes: { audit_reveals_event: { columns: ['chain_id', 'seq'] } },
};
export const AUDIT_TABLES_12: readonly Table[] = [
  AUDIT_CHAINS_TABLE,
  AUDIT_EVENTS_12,
  AUDIT_REVEALS_12,
];

/** A set's day is its events' UTC day: `at` over this. */
export const MS_PER_DAY = 86_400_000;
/** A minute row's minute is its events' `at` over this. */
export const MS_PER_MINUTE = 60_000;

/** A minute row's (`m`) events (`e`): its chain, its places, its workspace and minute. */
export const MINUTE_EVENTS = `audit_minutes m JOIN audit_events e ON e.chain_id = m.chain_id
  AND e.seq >= m.first_seq AND e.seq <= m.last_seq AND COALESCE(e.workspace_id, '') = m.workspace_id
  AND e.at >= m.minute * ${MS_PER_MINUTE} AND e.at < (m.minute + 1) * ${MS_PER_MINUTE}`;
/** The set an event (`e`) names (`st`), whose records readers see in its JSON. */
export const EVENT_SET = `LEFT JOIN audit_sets st ON st.set_id = e.revealed_set
  AND st.day = e.at / ${MS_PER_DAY}`;

/**
 * From version 12's reveals to sets (after `audit_set_workers` is made): each event that revealed
 * workers becomes a set of its own (`event:<chain>:<seq>`, on the event's day), the same workers
 * named; then the reveals go. The same SQL on both stores.
 */
export const REVEALS_TO_SETS: readonly string[] = [
  'ALTER TABLE audit_events ADD COLUMN revealed_set text',
  `UPDATE audit_events SET revealed_set = 'event:' || chain_id || ':' || seq
     WHERE EXISTS (SELECT 1 FROM audit_reveals r WHERE r.chain_id = audit_events.chain_id AND r.seq = audit_events.seq)`,
  `INSERT INTO audit_set_workers (workspace_id, worker_id, day, set_id)
     SELECT workspace_id, worker_id, at / ${MS_PER_DAY}, 'event:' || chain_id || ':' || seq FROM audit_reveals`,
  'DROP TABLE audit_reveals',
  'CREATE INDEX IF NOT EXISTS audit_events_set ON audit_events (revealed_set, at)',
];

/**
 * From the per-event indexes to minute rows (schema 19, `-audit` version 3; after `audit_sets`
 * and `audit_minutes` are made): each chain's events of one workspace and minute become one row
 * over their places, its lists null ("any": a search filters those events exactly, as it does
 * all), then the three indexes go. The events stay as they are: their JSON holds their records
 * inline, which readers and verify take as they come. The same SQL on both stores.
 */
export const MINUTES_FROM_EVENTS: readonly string[] = [
  `INSERT INTO audit_minutes (workspace_id, minute, chain_id, first_seq, last_seq)
     SELECT COALESCE(workspace_id, ''), at / ${MS_PER_MINUTE}, chain_id, MIN(seq), MAX(seq)
       FROM audit_events GROUP BY COALESCE(workspace_id, ''), at / ${MS_PER_MINUTE}, chain_id`,
  'DROP INDEX IF EXISTS audit_events_workspace',
  'DROP INDEX IF EXISTS audit_events_at',
  'DROP INDEX IF EXISTS audit_events_set',
];
