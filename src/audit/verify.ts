import type { AuditRecords, StoredAuditEvent } from '../store/sql/audit/audit-records.js';
import type { AuditChainHead } from '../store/sql/audit/audit-check-reads.js';
import type { RevealedRecord } from '../operations/revelation.js';
import { setNamed } from '../store/sql/audit/set-records.js';
import { eventHash, revealedSetOf, workersOf, type AuditEvent } from './event.js';
import { MinuteCover } from './verify-minutes.js';
import { verifySets, type ChainBreak } from './verify-sets.js';

export type { ChainBreak } from './verify-sets.js';

/** Events read from the store at a time while a chain is walked. */
const PAGE = 5000;

export interface Verification {
  chains: number;
  events: number;
  /** Heads checked (`--heads`), one per chain: the latest given. */
  heads?: number;
  /** The first break of each chain, then those of the sets and heads; empty when all holds. */
  breaks: ChainBreak[];
}

/**
 * The records an event revealed: inline, or its set's (`audit_sets`), which must be what the set's
 * id digests; a string when they are not there or not those.
 */
function recordsOf(stored: StoredAuditEvent, event: AuditEvent): RevealedRecord[] | string {
  const named = setNamed(event.revealed);
  if (named === null)
    return Array.isArray(event.revealed) ? event.revealed : 'its revealed records are not a list';
  if (stored.records === undefined) return 'the records of its set are not in the trail';
  let records: unknown;
  try {
    records = JSON.parse(stored.records);
  } catch {
    return 'the records of its set are not JSON';
  }
  if (!Array.isArray(records) || revealedSetOf(records as RevealedRecord[]) !== named)
    return 'the records of its set are not those its set id names';
  return records as RevealedRecord[];
}

/** The event's search columns that must say what its JSON says: the first that does not. */
function misfiledColumn(stored: StoredAuditEvent, event: AuditEvent): string | null {
  const clientId = event.caller?.kind === 'oauth' ? event.caller.clientId : null;
  const set = setNamed(event.revealed) ?? revealedSetOf(event.revealed);
  // A trail written before sets: each event that revealed workers is a set of its own.
  const legacy = `event:${stored.chainId}:${stored.seq}`;
  const setHolds =
    stored.revealedSet === set ||
    (stored.revealedSet === legacy &&
      event.workspace !== null &&
      Array.isArray(event.revealed) &&
      workersOf(event).length > 0);
  if (stored.at !== event.at) return 'at';
  if (stored.workspaceId !== event.workspace) return 'workspace_id';
  if (stored.clientId !== clientId) return 'client_id';
  if (stored.operation !== event.operation) return 'operation';
  if (!setHolds) return 'revealed_set';
  return null;
}

/** Walks one chain from its anchor; its first break, and how many events held before it. */
async function walkChain(
  records: AuditRecords,
  chain: { chainId: string; anchor: string; firstSeq: number },
): Promise<{ events: number; broken: ChainBreak | null }> {
  let expectedSeq = chain.firstSeq;
  let prev = chain.anchor;
  let events = 0;
  const minutes = new MinuteCover(records, chain.chainId, chain.firstSeq);
  const stop = (problem: ChainBreak['problem'], detail: string) => ({
    events,
    broken: { chainId: chain.chainId, seq: expectedSeq, problem, detail },
  });
  if (await records.auditEventBefore(chain.chainId, chain.firstSeq))
    return stop('unaccounted', `events before its first kept place ${chain.firstSeq}`);
  for (;;) {
    const page = await records.auditChainEvents(chain.chainId, expectedSeq - 1, PAGE);
    if (page.length === 0) return { events, broken: null };
    await minutes.readTo(page[page.length - 1].seq);
    for (const stored of page) {
      if (stored.seq !== expectedSeq)
        return stop(
          'missing',
          `the event at ${expectedSeq} is not there (the next is ${stored.seq})`,
        );
      if (stored.prev !== prev)
        return stop('does not follow', 'its prev is not the hash of the event before it');
      if (eventHash(stored.prev, stored.chainId, stored.seq, stored.event) !== stored.hash)
        return stop('changed', 'its hash is not the hash of what it holds');
      const event = JSON.parse(stored.event) as AuditEvent;
      const column = misfiledColumn(stored, event);
      if (column !== null)
        return stop('misfiled', `its ${column} column is not what the event says`);
      const records = recordsOf(stored, event);
      if (typeof records === 'string') return stop('set rows', records);
      const found = {
        clientId: stored.clientId,
        operation: stored.operation,
        workers: stored.workspaceId === null ? [] : workersOf({ revealed: records }),
      };
      const unfound = minutes.check(stored, found);
      if (unfound !== null) return stop('misfiled', unfound);
      events++;
      prev = stored.hash;
      expectedSeq++;
    }
  }
}

/**
 * Heads kept outside (DESIGN §4.17): each chain's latest head given must still be reached, its
 * event there with that hash (or, when retention took it, the chain's anchor after it). A chain
 * cut at its end, or removed whole, no longer reaches it.
 */
async function checkHeads(
  records: AuditRecords,
  heads: readonly AuditChainHead[],
  chains: Map<string, { anchor: string; firstSeq: number }>,
): Promise<ChainBreak[]> {
  const latest = new Map<string, AuditChainHead>();
  for (const head of heads)
    if ((latest.get(head.chain)?.seq ?? -1) < head.seq) latest.set(head.chain, head);
  const breaks: ChainBreak[] = [];
  for (const head of latest.values()) {
    const fail = (detail: string) =>
      breaks.push({ chainId: head.chain, seq: head.seq, problem: 'head not reached', detail });
    const chain = chains.get(head.chain);
    if (!chain) fail('the trail holds no chain of that id (removed whole)');
    else if (head.seq >= chain.firstSeq) {
      const hash = await records.auditHashAt(head.chain, head.seq);
      if (hash === null) fail('the chain no longer has the event at the head (cut at its end)');
      else if (hash !== head.hash)
        fail("the event at the head is not the one the head's hash names");
    } else if (head.seq === chain.firstSeq - 1 && chain.anchor !== head.hash)
      fail("retention moved the chain's anchor past the head, but not to its hash");
    // A head further back than the anchor was removed by retention: nothing is left to check.
  }
  return breaks;
}

/**
 * `vms-read audit verify` (DESIGN §4.17). Walks every chain from its anchor, in order: an event
 * whose hash is not that of its content and `prev` was changed; a gap in `seq` is one removed;
 * an event whose `prev` is not the hash before it does not follow (one inserted, or removed
 * before it); a search column (time, workspace, client, operation, set) that does not say what
 * the event says is misfiled, and so is one its minute row (verify-minutes.ts) does not find; the
 * records of its set must be what the set's id digests. Events no chain accounts for (its row gone, or before its anchor),
 * and each day's sets against their workers' rows (verify-sets.ts), are checked too: no edit of
 * a stored row changes what a search finds while verify passes. With `heads` (kept outside),
 * a chain cut at its end or removed whole is found as well.
 */
export async function verifyTrail(
  records: AuditRecords,
  heads?: readonly AuditChainHead[],
): Promise<Verification> {
  const result: Verification = { chains: 0, events: 0, breaks: [] };
  const chains = new Map<string, { anchor: string; firstSeq: number }>();
  for (const chain of await records.auditChains()) {
    result.chains++;
    chains.set(chain.chainId, chain);
    const walked = await walkChain(records, chain);
    result.events += walked.events;
    if (walked.broken) result.breaks.push(walked.broken);
  }
  for (const chainId of await records.auditEventChains())
    if (!chains.has(chainId))
      result.breaks.push({
        chainId,
        seq: 0,
        problem: 'unaccounted',
        detail: 'events of a chain the trail does not list (its row removed)',
      });
  result.breaks.push(...(await verifySets(records)));
  if (heads) {
    result.heads = new Set(heads.map((head) => head.chain)).size;
    result.breaks.push(...(await checkHeads(records, heads, chains)));
  }
  return result;
}
