/**
 * The tables of webhook delivery, which webhook-progress.ts reads and writes. Where each
 * subscription's delivery stands (DESIGN §4.14), kept in the store so that a restart
 * or a crash loses nothing, and so that with several instances one delivers a subscription at a
 * time:
 *
 * - `webhook_progress`, one row per subscription: the feed position delivered through
 *   (`position`, JSON `[version, type, id, horizon]`); the delivery under way, if any (`message_id`,
 *   the exact `body`, its `data_version`, the position after it, tries so far, when the first
 *   failed and when the next is due, all in ms since the epoch); the data version through which
 *   nothing is left to push (`checked_version`); and the lease (`lease_owner` until
 *   `lease_until`) of the instance delivering it.
 * - `webhook_attempts`: each try (when, the answer's status and size or why there was none, how
 *   long), the newest 100 per subscription. Never what a receiver said (`answer_bytes` is its
 *   size): a receiver may echo the body, names included (DESIGN §4.13).
 */
import type { Table } from '../table.js';

/** Each try of a delivery. */
export const WEBHOOK_ATTEMPTS_TABLE: Table = {
  name: 'webhook_attempts',
  columns: {
    subscription_id: 'text',
    message_id: 'text',
    attempt: 'integer',
    at: 'bigint!',
    data_version: 'bigint!',
    items: 'integer!',
    status: 'integer',
    /** Why there was no answer (a connection's error, the time limit); null when there was one. */
    error: 'text',
    ms: 'integer!',
    outcome: 'text!',
    answer_bytes: 'integer',
  },
  primaryKey: ['subscription_id', 'message_id', 'attempt'],
  indexes: { webhook_attempts_recent: { columns: ['subscription_id', 'at'] } },
};

/** Where each subscription's delivery stands, and its tries. */
export const WEBHOOK_DELIVERY_TABLES: readonly Table[] = [
  {
    name: 'webhook_progress',
    columns: {
      subscription_id: 'text',
      position: 'text!',
      checked_version: 'bigint!',
      message_id: 'text',
      body: 'text',
      data_version: 'bigint',
      next_position: 'text',
      items: 'integer',
      attempts: 'integer!',
      pending_since: 'bigint',
      first_failed_at: 'bigint',
      next_attempt_at: 'bigint',
      delivered_at: 'bigint',
      lease_owner: 'text',
      lease_until: 'bigint',
    },
    primaryKey: ['subscription_id'],
  },
  WEBHOOK_ATTEMPTS_TABLE,
];

/** The attempt log's columns before schema version 10 (no answer size). */
const LOGGED_BEFORE = Object.keys(WEBHOOK_ATTEMPTS_TABLE.columns).filter(
  (c) => c !== 'answer_bytes',
);

/**
 * Schema version 10: what older logs kept of a refusing receiver's answer (its first 200
 * characters, in `error`, beside its status) is dropped, and the answer's size is kept from now
 * on. The table is made again rather than updated (its rows copied aside without that text, the
 * table dropped, created as declared, filled back), so on PostgreSQL the old text leaves the
 * table's files with the old table instead of staying in dead rows. Self-contained: `before` runs
 * ahead of the table's creation, `after` follows it.
 */
export const ANSWER_TEXT_DROPPED = {
  before: [
    `CREATE TABLE webhook_attempts_kept AS SELECT ${LOGGED_BEFORE.map((c) =>
      c === 'error' ? 'CASE WHEN status IS NULL THEN error END AS error' : c,
    ).join(', ')} FROM webhook_attempts`,
    'DROP TABLE webhook_attempts',
  ],
  after: [
    `INSERT INTO webhook_attempts (${LOGGED_BEFORE.join(', ')})
     SELECT ${LOGGED_BEFORE.join(', ')} FROM webhook_attempts_kept`,
    'DROP TABLE webhook_attempts_kept',
  ],
} as const;
