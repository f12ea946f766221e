import { addressKey } from '../address-bounds.js';
import { DEFAULT_AUDIT_REFUSALS_PER_MINUTE } from '../config.js';
import type { AnsweredRequest } from '../operations/answered.js';

const MINUTE_MS = 60_000;

/**
 * How a refusal is counted (DESIGN §4.17): `address`, one event per client address, status and
 * UTC minute (every refusal before a credential was accepted: a 401, a 429 of a per-address bound,
 * anything else refused to a caller without one); `caller`, one per caller and UTC minute (a 429
 * of an accepted caller's quota or share); `rest`, one event for what came past the minute's
 * ceiling.
 */
export type CountedBy = 'address' | 'caller' | 'rest';

/** A counted refusal's event: the first request of its group, and how many it stands for. */
export interface CountedRefusals {
  first: AnsweredRequest;
  count: number;
  by: CountedBy;
}

/** The group a refusal is counted in, or null for an answer that is an event of its own. */
export function refusalGroupOf(request: AnsweredRequest): string | null {
  if (request.status < 400) return null;
  if (request.principal === null)
    return `address ${request.address === null ? '-' : addressKey(request.address)} ${request.status}`;
  if (request.status === 429) return `caller ${request.principal.tokenId} ${request.status}`;
  return null;
}

/**
 * The refusals of the current UTC minute, counted by group, so that a flood of any size from any
 * number of addresses adds at most `perMinute` + 1 events a minute to the trail: one per group up
 * to `perMinute` groups, then one that counts the rest. Memory holds the minute's groups alone.
 */
export class RefusalCounts {
  private minute = -1;
  private readonly groups = new Map<string, CountedRefusals>();
  private rest: CountedRefusals | null = null;

  constructor(private readonly perMinute: number = DEFAULT_AUDIT_REFUSALS_PER_MINUTE) {}

  /** When the minute being counted ends (ms); null when none is. */
  get endsAt(): number | null {
    return this.minute < 0 ? null : (this.minute + 1) * MINUTE_MS;
  }

  /**
   * Counts a refusal in `group` (refusalGroupOf); returns the counts of the minute before when this
   * one begins a new minute (a late one counts in the minute under way).
   */
  count(request: AnsweredRequest, group: string): CountedRefusals[] {
    const minute = Math.floor(request.at / MINUTE_MS);
    const ended = minute > this.minute ? this.take() : [];
    if (this.minute < 0 || minute > this.minute) this.minute = minute;
    const known = this.groups.get(group);
    if (known) known.count++;
    else if (this.groups.size < this.perMinute)
      this.groups.set(group, {
        first: request,
        count: 1,
        by: request.principal === null ? 'address' : 'caller',
      });
    else if (this.rest) this.rest.count++;
    else this.rest = { first: request, count: 1, by: 'rest' };
    return ended;
  }

  /** The counts of the minute under way, first seen first; the minute ends with them. */
  take(): CountedRefusals[] {
    const counts = [...this.groups.values()];
    if (this.rest) counts.push(this.rest);
    this.groups.clear();
    this.rest = null;
    this.minute = -1;
    return counts;
  }
}
