import type { AuditRecords } from '../store/sql/audit/audit-records.js';
import { eventHash } from './event.js';

/** Events read from the store at a time while a chain is walked. */
const PAGE = 5000;

/** Where a chain stops following: its place, and what is wrong there. */
export interface ChainBreak {
  chainId: string;
  /** The place where the chain should have gone on. */
  seq: number;
  problem: 'changed' | 'missing' | 'does not follow';
  detail: string;
}

export interface Verification {
  chains: number;
  events: number;
  /** The first event of each chain that does not follow; empty when every chain holds. */
  breaks: ChainBreak[];
}

/**
 * `vms-read audit verify` (DESIGN §4.17): walks every chain from its anchor, in order. An event
 * whose hash is not that of its content and `prev` was changed; a place with no event (a gap in
 * `seq`) is one removed; an event whose `prev` is not the hash before it does not follow (one
 * inserted, or removed before it). Each chain is reported at its first break.
 */
export async function verifyTrail(records: AuditRecords): Promise<Verification> {
  const result: Verification = { chains: 0, events: 0, breaks: [] };
  for (const chain of await records.auditChains()) {
    result.chains++;
    let expectedSeq = chain.firstSeq;
    let prev = chain.anchor;
    let after = chain.firstSeq - 1;
    walk: for (;;) {
      const events = await records.auditChainEvents(chain.chainId, after, PAGE);
      if (events.length === 0) break;
      for (const event of events) {
        const stop = (problem: ChainBreak['problem'], detail: string) =>
          result.breaks.push({ chainId: chain.chainId, seq: expectedSeq, problem, detail });
        if (event.seq !== expectedSeq) {
          stop('missing', `the event at ${expectedSeq} is not there (the next is ${event.seq})`);
          break walk;
        }
        if (event.prev !== prev) {
          stop('does not follow', 'its prev is not the hash of the event before it');
          break walk;
        }
        if (eventHash(event.prev, event.chainId, event.seq, event.event) !== event.hash) {
          stop('changed', 'its hash is not the hash of what it holds');
          break walk;
        }
        result.events++;
        prev = event.hash;
        expectedSeq++;
        after = event.seq;
      }
    }
  }
  return result;
}
