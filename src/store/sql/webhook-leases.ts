/**
 * The leases on webhook subscriptions (DESIGN §4.14: with several instances one delivers each
 * subscription at a time), columns of `webhook_progress` (`lease_owner` until `lease_until`, ms
 * on the holder's clock). What they guarantee, with the delivery (subscription-delivery.ts):
 *
 * - one holder at a time: a lease is claimed only when free, already the claimer's, or lapsed;
 * - a try never outlives its lease: before each try the holder lengthens its lease past the try's
 *   time limit (`holdForTry`), so a receiver slower than the lease, or a loop that renews late,
 *   lets no other instance take over while the try may be under way; a renewal never shortens it;
 * - only the holder writes where the feed stands: every write of the delivery names the lease
 *   (`LEASE_HELD`), so an instance that lost its lease records nothing over its successor's
 *   progress, and stops before it sends the next page.
 *
 * An instance (`owner`) delivers a subscription in one task at a time, so its name fences its
 * writes as well as a token per claim would: its next task, and claim, begins after the last ended.
 */
import type { WebhookSql } from './webhook-subscriptions.js';

/** A write of the lease's holder: the subscription and the owner are its parameters. */
export const LEASE_HELD = 'subscription_id = ? AND lease_owner = ?';

/** The lease lasts at least until the parameter (given twice): lengthened, never shortened. */
const LEASE_AT_LEAST = 'lease_until = CASE WHEN lease_until > ? THEN lease_until ELSE ? END';

export interface DeliveryLeases {
  /** Takes or renews the lease; false when another live holder has it. */
  claim(subscriptionId: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Renews every lease `owner` holds to `now + leaseMs`, never shortening a try's. */
  renewLeases(owner: string, now: number, leaseMs: number): Promise<void>;
  /**
   * Before a try of delivery `messageId`: the lease is still `owner`'s and that delivery still
   * waits, and the lease now lasts at least `until` (past the try's time limit). False: the lease
   * or the delivery was lost, and nothing is to be sent.
   */
  holdForTry(
    subscriptionId: string,
    owner: string,
    messageId: string,
    until: number,
  ): Promise<boolean>;
  /** Gives up every lease `owner` holds (a graceful stop: another may take over at once). */
  releaseLeases(owner: string): Promise<void>;
}

/** The DeliveryLeases part, written once for both stores. */
export function deliveryLeases(sql: WebhookSql): DeliveryLeases {
  return {
    async claim(id, owner, now, leaseMs) {
      const claimed = await sql.run(
        `UPDATE webhook_progress SET lease_owner = ?, lease_until = ?
         WHERE subscription_id = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)`,
        [owner, now + leaseMs, id, owner, now],
      );
      return claimed > 0;
    },
    async renewLeases(owner, now, leaseMs) {
      await sql.run(`UPDATE webhook_progress SET ${LEASE_AT_LEAST} WHERE lease_owner = ?`, [
        now + leaseMs,
        now + leaseMs,
        owner,
      ]);
    },
    async holdForTry(id, owner, messageId, until) {
      const held = await sql.run(
        `UPDATE webhook_progress SET ${LEASE_AT_LEAST} WHERE ${LEASE_HELD} AND message_id = ?`,
        [until, until, id, owner, messageId],
      );
      return held > 0;
    },
    async releaseLeases(owner) {
      await sql.run(
        'UPDATE webhook_progress SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?',
        [owner],
      );
    },
  };
}
