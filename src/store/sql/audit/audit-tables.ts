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
 * - `audit_set_workers`: "who saw this worker" as one index range: the workers each set of
 *   revealed records names. A set is the records an answer carried, in one workspace on one UTC
 *   day (its id a digest of the three): an answer given again (a list page read every minute, a
 *   cached repeat) names the same set, so its workers are written once a day, not once per
 *   request. Sets of a day go with that day's events (retention).
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
  indexes: {
    audit_events_workspace: { columns: ['workspace_id', 'at'] },
    audit_events_at: { columns: ['at'] },
    audit_events_set: { columns: ['revealed_set', 'at'] },
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
  AUDIT_SET_WORKERS_TABLE,
];

/**
 * Version 12's tables (PostgreSQL's migration 12, a `-audit` file of user_version 1), as they were:
 * an `audit_reveals` row per worker per event. `REVEALS_TO_SETS` moves such a trail to sets.
 */
const AUDIT_EVENTS_12: Table = {
  ...AUDIT_EVENTS_TABLE,
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
