/**
 * Which subscriptions with something due start delivering this round (DESIGN §4.14: dead
 * receivers never hold the deliveries of other subscriptions). A try to a receiver that accepts
 * connections and never answers holds its slot for the whole time limit (10 s), so slots are
 * shared out rather than taken in creation order:
 *
 * - **per receiver**: at most `perReceiver` deliveries at once to one receiver, a URL's host and
 *   port (whatever its path), so forty subscriptions at one dead receiver hold four slots, not
 *   all 32;
 * - **a lane for retries**: deliveries whose last try failed take at most `retrySlots` of the
 *   slots, so receivers known to be failing, on however many hosts, leave the rest to the others;
 * - **a fair order**: those not failing before those retrying; within each, receivers take turns
 *   (the one with the fewest deliveries under way first), and a receiver's subscriptions too (the
 *   one started longest ago, or never, first), so no subscription waits behind the same others
 *   every round, and a healthy receiver is not the last of a crowd of dead ones.
 *
 * What this cannot tell apart is a first try: as many different receivers as there are slots,
 * none of which answered before nor does now, can fill the slots once, for one time limit; from
 * their second try they are retries.
 */

/** A subscription with something due. */
export interface DueDelivery {
  id: string;
  /** The receiver: its URL's host and port (`receiverOf`). */
  receiver: string;
  /** Its waiting delivery's last try failed. */
  retrying: boolean;
  /** When this instance last started delivering it (0: never). */
  lastStarted: number;
}

/** A delivery under way, as the bounds count it. */
export type RunningDelivery = Pick<DueDelivery, 'receiver' | 'retrying'>;

export interface SlotLimits {
  /** Deliveries at once, in all. */
  slots: number;
  /** Deliveries at once to one receiver. */
  perReceiver: number;
  /** Deliveries at once whose last try failed. */
  retrySlots: number;
}

/** Default: 4 at once per receiver (a receiver that answers takes its deliveries quickly). */
export const DEFAULT_PER_RECEIVER = 4;

/** Default share of the slots that retries may hold: a quarter (8 of the default 32). */
export const retrySlotsOf = (slots: number): number => Math.max(1, Math.floor(slots / 4));

/** The receiver a URL names: its host and port (host name in lower case, default port left out). */
export function receiverOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

/** The due deliveries to start now, in the order to start them. */
export function chooseStarts(
  due: readonly DueDelivery[],
  running: Iterable<RunningDelivery>,
  limits: SlotLimits,
): DueDelivery[] {
  const load = new Map<string, number>();
  let total = 0;
  let retries = 0;
  const take = (d: RunningDelivery) => {
    load.set(d.receiver, (load.get(d.receiver) ?? 0) + 1);
    total++;
    if (d.retrying) retries++;
  };
  for (const d of running) take(d);
  const loadOf = (d: DueDelivery) => load.get(d.receiver) ?? 0;
  // Each pick: not retrying first, then the receiver with the fewest deliveries under way (so
  // receivers take turns), then the subscription started longest ago; ties in the order given.
  const before = (a: DueDelivery, b: DueDelivery) =>
    Number(a.retrying) - Number(b.retrying) ||
    loadOf(a) - loadOf(b) ||
    a.lastStarted - b.lastStarted;
  const left = [...due];
  const chosen: DueDelivery[] = [];
  while (total < limits.slots) {
    let best = -1;
    for (let i = 0; i < left.length; i++) {
      const d = left[i];
      if (loadOf(d) >= limits.perReceiver) continue;
      if (d.retrying && retries >= limits.retrySlots) continue;
      if (best < 0 || before(d, left[best]) < 0) best = i;
    }
    if (best < 0) break;
    const [next] = left.splice(best, 1);
    take(next);
    chosen.push(next);
  }
  return chosen;
}
