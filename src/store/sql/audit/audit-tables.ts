/**
 * The access trail's tables (DESIGN §4.17). Each server process writes a chain of its own
 * (`audit_chains`): its events in order (`seq` from 1), each hashed over the one before, so that
 * several instances over one database never wait on one another to append. What a query filters
 * on is in columns of its own; the event itself is its canonical JSON, the bytes its hash covers.
 *
 * - `audit_chains`: one row per chain: when it began, and the anchor of its first kept event (the
 *   `prev` of the oldest event retention left; the chain's own start before that).
 * - `audit_events`: one row per answered request: its chain and place, when, its workspace, client
 *   and operation, the event, `prev` and `hash`.
 * - `audit_reveals`: one row per worker an event revealed (the worker, or a record naming it), so
 *   that "who saw this worker" reads one index range.
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
    event: 'text!',
    prev: 'text!',
    hash: 'text!',
  },
  primaryKey: ['chain_id', 'seq'],
  indexes: {
    audit_events_workspace: { columns: ['workspace_id', 'at'] },
    audit_events_at: { columns: ['at'] },
  },
};

export const AUDIT_REVEALS_TABLE: Table = {
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

export const AUDIT_TABLES: readonly Table[] = [
  AUDIT_CHAINS_TABLE,
  AUDIT_EVENTS_TABLE,
  AUDIT_REVEALS_TABLE,
];
