import { WEBHOOK_DELIVERY_TABLES } from './webhook-delivery-tables.js';
import { deliveryLeases, LEASE_HELD, type DeliveryLeases } from './webhook-leases.js';
import type { WebhookSql } from './webhook-subscriptions.js';

/** A row as the store's primitives give it. */
type Row = Record<string, unknown>;

/** How many attempts a subscription's log keeps. */
export const ATTEMPTS_KEPT = 100;

/** A feed position with the tombstone horizon known when the subscription began reading. */
export type SubscriptionPosition = readonly [
  version: number,
  type: string,
  id: string,
  horizon: number,
];

/** A delivery made and not yet acknowledged: sent again, the same, until it is. */
export interface PendingDelivery {
  messageId: string;
  body: string;
  dataVersion: number;
  /** Where the feed stands once it is delivered. */
  nextPosition: SubscriptionPosition;
  items: number;
  /** Failed tries so far. */
  attempts: number;
  pendingSince: number;
  firstFailedAt: number | null;
  nextAttemptAt: number;
}

export interface DeliveryProgress {
  subscriptionId: string;
  position: SubscriptionPosition;
  checkedVersion: number;
  pending: PendingDelivery | null;
  deliveredAt: number | null;
  leaseOwner: string | null;
  leaseUntil: number;
}

/** One try, as the log keeps it. */
export interface DeliveryAttempt {
  subscriptionId: string;
  messageId: string;
  attempt: number;
  at: number;
  dataVersion: number;
  items: number;
  status: number | null;
  /** The size of the answer read (at most 4 KiB), null when there was none. */
  answerBytes: number | null;
  /** Why there was no answer; null when there was one. */
  error: string | null;
  ms: number;
  /** delivered, retry, failing (gave up) or disabled (a 410). */
  outcome: 'delivered' | 'retry' | 'failing' | 'disabled';
}

/**
 * What the delivery reads and writes; every write of a holder names its lease, and only the
 * holder's are made (webhook-leases.ts).
 */
export interface DeliveryRecords extends DeliveryLeases {
  /**
   * Every subscription's progress (those never delivered have none), each waiting delivery's
   * `body` left out (empty): the loop reads this every round, a body only when it sends it.
   */
  listProgress(): Promise<DeliveryProgress[]>;
  findProgress(subscriptionId: string): Promise<DeliveryProgress | null>;
  /** Makes the row if missing (a new subscription starts at `position`). */
  startProgress(subscriptionId: string, position: SubscriptionPosition): Promise<void>;
  /** Nothing to push through `checkedVersion`; the feed stands at `position`. False: lease lost. */
  advance(
    subscriptionId: string,
    owner: string,
    position: SubscriptionPosition,
    checkedVersion: number,
  ): Promise<boolean>;
  /**
   * A new delivery to make, built from the store at `dataVersion`. False: lease lost, or the
   * data changed since (an erasure among the changes could have removed text it holds).
   */
  setPending(
    subscriptionId: string,
    owner: string,
    pending: PendingDelivery,
    dataVersion: number,
  ): Promise<boolean>;
  /** Delivery `messageId` was acknowledged: the feed moves past it. False: lease or it lost. */
  delivered(subscriptionId: string, owner: string, messageId: string, at: number): Promise<boolean>;
  /** A try of `messageId` failed; the next is due at `nextAttemptAt`. False: lease or it lost. */
  failed(
    subscriptionId: string,
    owner: string,
    messageId: string,
    firstFailedAt: number,
    nextAttemptAt: number,
  ): Promise<boolean>;
  /** An operator enabled the subscription again: its delivery is tried at once, for 3 more days. */
  resetRetries(subscriptionId: string): Promise<void>;
  recordAttempt(attempt: DeliveryAttempt): Promise<void>;
  /** The newest attempts first. */
  recentAttempts(subscriptionId: string, limit: number): Promise<DeliveryAttempt[]>;
  /** The subscription's progress and attempts go with it. */
  forget(subscriptionId: string): Promise<void>;
}

const num = (value: unknown): number | null => (value === null ? null : Number(value));

const positionOf = (text: unknown) => JSON.parse(String(text)) as SubscriptionPosition;

function toProgress(row: Row): DeliveryProgress {
  return {
    subscriptionId: String(row.subscription_id),
    position: positionOf(row.position),
    checkedVersion: Number(row.checked_version),
    pending:
      row.message_id === null
        ? null
        : {
            messageId: String(row.message_id),
            body: String(row.body),
            dataVersion: Number(row.data_version),
            nextPosition: positionOf(row.next_position),
            items: Number(row.items),
            attempts: Number(row.attempts),
            pendingSince: Number(row.pending_since),
            firstFailedAt: num(row.first_failed_at),
            nextAttemptAt: Number(row.next_attempt_at),
          },
    deliveredAt: num(row.delivered_at),
    leaseOwner: row.lease_owner === null ? null : String(row.lease_owner),
    leaseUntil: Number(row.lease_until ?? 0),
  };
}

const toAttempt = (row: Row): DeliveryAttempt => ({
  subscriptionId: String(row.subscription_id),
  messageId: String(row.message_id),
  attempt: Number(row.attempt),
  at: Number(row.at),
  dataVersion: Number(row.data_version),
  items: Number(row.items),
  status: num(row.status),
  answerBytes: num(row.answer_bytes),
  error: row.error === null ? null : String(row.error),
  ms: Number(row.ms),
  outcome: String(row.outcome) as DeliveryAttempt['outcome'],
});

/** No delivery waiting: the next one is built from the store. */
const NO_PENDING = `message_id = NULL, body = NULL, data_version = NULL, next_position = NULL,
  items = NULL, attempts = 0, pending_since = NULL, first_failed_at = NULL, next_attempt_at = NULL`;

/**
 * Drops the waiting deliveries whose body holds a text (an erased worker's id as a JSON string,
 * DESIGN §4.13; the parameter a `LIKE … ESCAPE '\'` pattern): their text may hold what was
 * erased. Each is built again from the store, from the same place in the feed, with a new id.
 * Runs in the erasure's write transaction.
 */
export const DROP_PENDING_NAMING = `UPDATE webhook_progress SET ${NO_PENDING} WHERE body LIKE ? ESCAPE '\\'`;

/** The DeliveryRecords part, written once for both stores. */
export function deliveryRecords(sql: WebhookSql): DeliveryRecords {
  const held = async (statement: string, params: readonly unknown[]) =>
    (await sql.run(statement, params)) > 0;
  return {
    ...deliveryLeases(sql),
    async listProgress() {
      const columns = WEBHOOK_DELIVERY_TABLES[0].columns;
      const read = Object.keys(columns).map((c) => (c === 'body' ? "'' AS body" : c));
      return (await sql.all(`SELECT ${read.join(', ')} FROM webhook_progress`, [])).map(toProgress);
    },
    async findProgress(id) {
      const [row] = await sql.all('SELECT * FROM webhook_progress WHERE subscription_id = ?', [id]);
      return row ? toProgress(row) : null;
    },
    async startProgress(id, position) {
      await sql.run(
        `INSERT INTO webhook_progress (subscription_id, position, checked_version, attempts)
         VALUES (?, ?, ?, 0) ON CONFLICT (subscription_id) DO NOTHING`,
        [id, JSON.stringify(position), Math.max(0, position[0] - 1)],
      );
    },
    advance(id, owner, position, checkedVersion) {
      return held(
        `UPDATE webhook_progress SET position = ?, checked_version = ? WHERE ${LEASE_HELD} AND message_id IS NULL`,
        [JSON.stringify(position), checkedVersion, id, owner],
      );
    },
    setPending(id, owner, p, dataVersion) {
      return held(
        `UPDATE webhook_progress SET message_id = ?, body = ?, data_version = ?, next_position = ?,
           items = ?, attempts = ?, pending_since = ?, first_failed_at = ?, next_attempt_at = ?
         WHERE ${LEASE_HELD} AND message_id IS NULL
           AND (SELECT value FROM meta WHERE key = 'data_version') = ?`,
        [
          p.messageId,
          p.body,
          p.dataVersion,
          JSON.stringify(p.nextPosition),
          p.items,
          p.attempts,
          p.pendingSince,
          p.firstFailedAt,
          p.nextAttemptAt,
          id,
          owner,
          String(dataVersion),
        ],
      );
    },
    delivered(id, owner, messageId, at) {
      return held(
        `UPDATE webhook_progress SET position = next_position, checked_version = data_version,
           ${NO_PENDING}, delivered_at = ?
         WHERE ${LEASE_HELD} AND message_id = ?`,
        [at, id, owner, messageId],
      );
    },
    failed(id, owner, messageId, firstFailedAt, nextAttemptAt) {
      return held(
        `UPDATE webhook_progress SET attempts = attempts + 1, first_failed_at = ?, next_attempt_at = ?
         WHERE ${LEASE_HELD} AND message_id = ?`,
        [firstFailedAt, nextAttemptAt, id, owner, messageId],
      );
    },
    async resetRetries(id) {
      await sql.run(
        `UPDATE webhook_progress SET attempts = 0, first_failed_at = NULL, next_attempt_at = 0
         WHERE subscription_id = ? AND message_id IS NOT NULL`,
        [id],
      );
    },
    async recordAttempt(a) {
      await sql.run(
        `INSERT INTO webhook_attempts (subscription_id, message_id, attempt, at, data_version, items, status, answer_bytes, error, ms, outcome)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          a.subscriptionId,
          a.messageId,
          a.attempt,
          a.at,
          a.dataVersion,
          a.items,
          a.status,
          a.answerBytes,
          a.error,
          a.ms,
          a.outcome,
        ],
      );
      await sql.run(
        `DELETE FROM webhook_attempts WHERE subscription_id = ? AND at < (
           SELECT at FROM webhook_attempts WHERE subscription_id = ? ORDER BY at DESC LIMIT 1 OFFSET ${ATTEMPTS_KEPT - 1})`,
        [a.subscriptionId, a.subscriptionId],
      );
    },
    async recentAttempts(id, limit) {
      return (
        await sql.all(
          'SELECT * FROM webhook_attempts WHERE subscription_id = ? ORDER BY at DESC, attempt DESC LIMIT ?',
          [id, limit],
        )
      ).map(toAttempt);
    },
    async forget(id) {
      await sql.run('DELETE FROM webhook_attempts WHERE subscription_id = ?', [id]);
      await sql.run('DELETE FROM webhook_progress WHERE subscription_id = ?', [id]);
    },
  };
}
