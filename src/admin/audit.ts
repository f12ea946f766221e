import type { AuditEvent } from '../audit/event.js';
import { verifyTrail, type Verification } from '../audit/verify.js';
import type { AuditQuery, AuditTrailStore } from '../store/store.js';

/** Events read at a time from the store while a listing goes on. */
const PAGE = 10_000;

/** A stored event as the commands print it: the event, its chain and place, and its hash. */
export interface ListedEvent extends AuditEvent {
  chain: string;
  seq: number;
  hash: string;
}

/**
 * The trail's events matching `query`, newest first, page after page (`vms-read audit list` and
 * `audit worker`, DESIGN §4.17).
 */
export async function* auditEvents(
  store: AuditTrailStore,
  query: Omit<AuditQuery, 'limit' | 'before'>,
): AsyncGenerator<ListedEvent> {
  let before: AuditQuery['before'];
  for (;;) {
    const page = await store.auditTrail().listAuditEvents({ ...query, before, limit: PAGE });
    for (const stored of page)
      yield {
        ...(JSON.parse(stored.event) as AuditEvent),
        chain: stored.chainId,
        seq: stored.seq,
        hash: stored.hash,
      };
    if (page.length < PAGE) return;
    const last = page[page.length - 1];
    before = [last.at, last.chainId, last.seq];
  }
}

/** `vms-read audit verify`: every chain walked from its anchor. */
export function verifyAudit(store: AuditTrailStore): Promise<Verification> {
  return verifyTrail(store.auditTrail());
}
