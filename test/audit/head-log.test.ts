/**
 * Heads kept outside (DESIGN §4.17): the trail logs its chain's head at info level every minute
 * in which the chain moved, and at shutdown; the head is the last event stored (one lost in a
 * crash is never named). Mock timers, a store that keeps what it is given.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { HEAD_LOG_MS, AuditTrail } from '../../src/audit/trail.js';
import type { AnsweredRequest } from '../../src/operations/answered.js';
import type { AuditRecords, NewAuditEvent } from '../../src/store/sql/audit/audit-records.js';

const request = (i: number): AnsweredRequest => ({
  requestId: `r${i}`,
  at: 1_000 + i,
  transport: 'rest',
  address: '192.0.2.1',
  userAgent: null,
  principal: null,
  operation: null,
  seen: {},
  status: 200,
  code: null,
});

describe("the trail's head in the log", () => {
  it('is logged each minute the chain moved, and at shutdown, as stored', async () => {
    mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
    try {
      const stored: NewAuditEvent[] = [];
      const records = {
        startAuditChain: async () => {},
        appendAuditEvents: async (events: readonly NewAuditEvent[]) => {
          stored.push(...events);
        },
      } as unknown as AuditRecords;
      const heads: object[] = [];
      const trail = new AuditTrail(records, {
        log: { warn: () => {}, info: (fields, message) => heads.push({ ...fields, message }) },
      });
      const headOf = (event: NewAuditEvent) => ({
        chain: trail.chainId,
        seq: event.seq,
        hash: event.hash,
        message: 'access trail head',
      });
      mock.timers.tick(HEAD_LOG_MS);
      assert.deepEqual(heads, [], 'nothing stored: no head');
      trail.answered(request(1));
      trail.answered(request(2));
      // Answered, not yet stored: the head does not name them.
      mock.timers.tick(HEAD_LOG_MS - 1);
      assert.deepEqual(heads, []);
      await trail.flush();
      mock.timers.tick(1);
      assert.deepEqual(heads, [headOf(stored[1])]);
      mock.timers.tick(HEAD_LOG_MS);
      assert.equal(heads.length, 1, 'a minute it did not move: nothing new');
      trail.answered(request(3));
      await trail.close();
      assert.deepEqual(heads, [headOf(stored[1]), headOf(stored[2])], 'at shutdown');
    } finally {
      mock.timers.reset();
    }
  });
});
