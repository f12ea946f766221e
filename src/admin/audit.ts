import type { AuditEvent } from '../audit/event.js';
import { verifyTrail, type Verification } from '../audit/verify.js';
import type { AuditChainHead } from '../store/sql/audit/audit-check-reads.js';
import type { AdminWrites, AuditQuery, AuditTrailStore } from '../store/store.js';

/** Events read at a time from the store while a listing goes on. */
const PAGE = 10_000;

/** A stored event as the commands print it: the event, its chain and place, `prev` and hash. */
export interface ListedEvent extends AuditEvent {
  chain: string;
  seq: number;
  prev: string;
  hash: string;
}

/**
 * The trail's events matching `query`, newest first, page after page (`vms-read audit list` and
 * `audit worker`, DESIGN §4.17). A worker without a workspace is looked for in every workspace
 * (ids are unique across them).
 */
export async function* auditEvents(
  store: AuditTrailStore & Pick<AdminWrites, 'listWorkspaces'>,
  asked: Omit<AuditQuery, 'limit' | 'before'>,
): AsyncGenerator<ListedEvent> {
  const query =
    asked.workerId !== undefined && asked.workspaceId === undefined
      ? { ...asked, workspaceIds: (await store.listWorkspaces()).map((w) => w.id) }
      : asked;
  let before: AuditQuery['before'];
  for (;;) {
    const page = await store.auditTrail().listAuditEvents({ ...query, before, limit: PAGE });
    for (const stored of page)
      yield {
        ...(JSON.parse(stored.event) as AuditEvent),
        chain: stored.chainId,
        seq: stored.seq,
        prev: stored.prev,
        hash: stored.hash,
      };
    if (page.length < PAGE) return;
    const last = page[page.length - 1];
    before = [last.at, last.chainId, last.seq];
  }
}

/** `vms-read audit verify`: every chain walked from its anchor; with heads kept outside, those. */
export function verifyAudit(
  store: AuditTrailStore,
  heads?: readonly AuditChainHead[],
): Promise<Verification> {
  return verifyTrail(store.auditTrail(), heads);
}

/** `vms-read audit heads`: each chain's head, as the server logs it. */
export function auditHeads(store: AuditTrailStore): Promise<AuditChainHead[]> {
  return store.auditTrail().auditHeads();
}

/**
 * The heads in a file of lines (DESIGN §4.17): `audit heads` output or the server's log, whose
 * `access trail head` lines carry `chain`, `seq` and `hash`; other lines are passed over.
 */
export function headsIn(text: string): AuditChainHead[] {
  const heads: AuditChainHead[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"hash"')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const { chain, seq, hash } = (parsed ?? {}) as Record<string, unknown>;
    if (typeof chain === 'string' && Number.isSafeInteger(seq) && typeof hash === 'string')
      heads.push({ chain, seq: seq as number, hash });
  }
  return heads;
}
