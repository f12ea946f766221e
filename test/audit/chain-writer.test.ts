/**
 * The chain's writer (chain-writer.ts, issue 59): events handed over in batches are placed in the
 * order given, hashed onto the chain and appended; what the store refuses is kept, in order, and
 * written when it takes it again; past its bound the oldest go, leaving a gap in the places that
 * `audit verify` reports. A store double that refuses on demand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChainWriter, type HandedBatch } from '../../src/audit/chain-writer.js';
import { canonicalEvent, chainStart, eventHash, type AuditEvent } from '../../src/audit/event.js';
import type { NewAuditEvent } from '../../src/store/sql/audit/audit-records.js';

const CHAIN = 'chain_test';

const event = (i: number): AuditEvent => ({
  at: 1_000 + i,
  requestId: `r${i}`,
  workspace: 'ws_a',
  caller: { kind: 'access_key', keyId: 'k1' },
  role: 'staff',
  worker: null,
  supplier: null,
  address: '192.0.2.1',
  userAgent: null,
  transport: 'rest',
  operation: 'list_workers',
  params: { limit: i },
  status: 200,
  code: null,
  revealed: [],
});

/** A batch of events `from`..`to`, their records inline (none). */
const batch = (id: number, from: number, to: number): HandedBatch => ({
  id,
  events: Array.from({ length: to - from + 1 }, (_, k) => ({ event: event(from + k), set: null })),
  sets: [],
});

/** A store that keeps what it takes and refuses while `refusing` is set. */
function store() {
  const stored: NewAuditEvent[] = [];
  const state = { refusing: false, starts: 0 };
  return {
    stored,
    state,
    records: {
      startAuditChain: async () => {
        if (state.refusing) throw new Error('refused');
        state.starts++;
      },
      appendAuditEvents: async (events: readonly NewAuditEvent[]) => {
        if (state.refusing) throw new Error('refused');
        stored.push(...events);
      },
    },
  };
}

/** Each stored event follows the one before it, over its own canonical JSON. */
function assertChained(stored: readonly NewAuditEvent[], first: string) {
  let prev = first;
  for (const e of stored) {
    assert.equal(e.prev, prev, `event ${e.seq} follows the one before`);
    assert.equal(e.hash, eventHash(prev, CHAIN, e.seq, e.event));
    prev = e.hash;
  }
}

/** A writer of CHAIN whose warnings go nowhere. */
const quietWriter = (records: ReturnType<typeof store>['records'], maxWaiting?: number) =>
  new ChainWriter(
    records,
    CHAIN,
    () => 0,
    () => {},
    maxWaiting,
  );

describe("the chain's writer", () => {
  it('places, hashes and stores events in the order handed over, as their canonical JSON', async () => {
    const { records, stored } = store();
    const writer = quietWriter(records);
    writer.take(batch(1, 1, 3));
    writer.take(batch(2, 4, 5));
    const outcome = await writer.write();
    assert.deepEqual(
      stored.map((e) => e.seq),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      stored.map((e) => e.event),
      [1, 2, 3, 4, 5].map((i) => canonicalEvent(event(i))),
    );
    assertChained(stored, chainStart(CHAIN));
    assert.deepEqual(outcome, {
      chain: CHAIN,
      head: { chain: CHAIN, seq: 5, hash: stored[4].hash },
      settled: 2,
      pending: 0,
      dropped: 0,
      failed: false,
    });
  });

  it('keeps what the store refuses, in order, and writes it once the store takes it', async () => {
    const { records, stored, state } = store();
    const warnings: string[] = [];
    const writer = new ChainWriter(
      records,
      CHAIN,
      () => 0,
      (_f, m) => warnings.push(m),
    );
    state.refusing = true;
    writer.take(batch(1, 1, 2));
    let outcome = await writer.write();
    assert.equal(outcome.failed, true);
    assert.equal(outcome.pending, 2);
    assert.equal(outcome.settled, 0, 'no batch is done with');
    assert.equal(outcome.head, null);
    writer.take(batch(2, 3, 4));
    outcome = await writer.write();
    assert.equal(outcome.pending, 4);
    assert.deepEqual(warnings, ['access trail not written', 'access trail not written']);
    state.refusing = false;
    outcome = await writer.write();
    assert.equal(outcome.failed, false);
    assert.equal(outcome.settled, 2);
    assert.equal(state.starts, 1, 'the chain is started once');
    assert.deepEqual(
      stored.map((e) => e.seq),
      [1, 2, 3, 4],
    );
    assertChained(stored, chainStart(CHAIN));
  });

  it('drops the oldest past its bound: a gap in the places, the rest still chained', async () => {
    const { records, stored, state } = store();
    const writer = quietWriter(records, 5);
    state.refusing = true;
    writer.take(batch(1, 1, 3));
    await writer.write();
    writer.take(batch(2, 4, 8));
    const refused = await writer.write();
    assert.equal(refused.dropped, 3);
    assert.equal(refused.pending, 5);
    assert.equal(refused.settled, 1, 'the first batch is done with: its events stored or dropped');
    state.refusing = false;
    const outcome = await writer.write();
    assert.deepEqual(
      stored.map((e) => e.seq),
      [4, 5, 6, 7, 8],
      'events 1 to 3 dropped: their places stay empty',
    );
    assert.equal(outcome.dropped, 3);
    // The first kept follows the last dropped, which was hashed before it went.
    assert.notEqual(stored[0].prev, chainStart(CHAIN));
    assertChained(stored, stored[0].prev);
  });

  it("names an event's records by its set, given once a batch, with the set's workers", async () => {
    const { records, stored } = store();
    const writer = quietWriter(records);
    const records2 = '[{"id":"wk_1","type":"worker","worker":"wk_1"}]';
    writer.take({
      id: 1,
      events: [
        { event: event(1), set: 'set_a' },
        { event: event(2), set: 'set_a' },
        { event: event(3), set: null, inline: '[]' },
      ],
      sets: [['set_a', records2, ['wk_1']]],
    });
    await writer.write();
    assert.deepEqual(
      stored.map((e) => [e.revealedSet, e.records, e.workers]),
      [
        ['set_a', records2, ['wk_1']],
        ['set_a', records2, ['wk_1']],
        [null, null, []],
      ],
    );
    assert.match(stored[0].event, /"revealed":\{"set":"set_a"\}/);
  });
});
