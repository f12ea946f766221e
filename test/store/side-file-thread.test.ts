/**
 * The access trail's writes on SQLite run on a thread of their own (side-file-thread.ts): while
 * another process holds the `-audit` file's write lock, the server's event loop goes on, and the
 * batch is written once the lock is free. Before, better-sqlite3 waited for the lock on the event
 * loop itself (busy_timeout), so nothing else ran meanwhile and the lock, released by a timer,
 * was never released in time: the batch failed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { chainStart } from '../../src/audit/event.js';
import { openStore } from '../../src/store/open-store.js';
import type { NewAuditEvent } from '../../src/store/sql/audit/audit-records.js';

const dir = mkdtempSync(join(tmpdir(), 'vms-side-thread-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const event = (seq: number): NewAuditEvent => ({
  chainId: 'chain_thread',
  seq,
  at: Date.parse('2026-12-02T10:00:00Z') + seq,
  workspaceId: 'ws_business',
  clientId: null,
  operation: 'get_worker',
  revealedSet: null,
  event: JSON.stringify({ seq }),
  prev: seq === 1 ? chainStart('chain_thread') : `hash${seq - 1}`,
  hash: `hash${seq}`,
  workers: [],
});

it('writes the trail off the event loop: a held write lock stops neither timers nor the batch', async () => {
  const path = join(dir, 'vms.db');
  const store = await openStore(path, { create: true });
  try {
    const trail = store.auditTrail();
    await trail.startAuditChain({
      chainId: 'chain_thread',
      startedAt: Date.now(),
      anchor: chainStart('chain_thread'),
      firstSeq: 1,
    });
    // Another process (a second connection) holds the write lock for 1.5 s: longer than the
    // server's own connections wait (1 s), released by a timer of this event loop.
    const other = new Database(`${path}-audit`);
    other.exec('BEGIN IMMEDIATE');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        other.close();
        resolve();
      }, 1500),
    );
    const order: string[] = [];
    const ticked = new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push('timer');
        resolve();
      }, 20),
    );
    const written = trail
      .appendAuditEvents([event(1), event(2), event(3)])
      .then(() => order.push('written'));
    await Promise.all([written, ticked, released]);
    assert.deepEqual(order, ['timer', 'written']);
    const events = await trail.auditChainEvents('chain_thread', 0, 10);
    assert.deepEqual(
      events.map((e) => e.seq),
      [1, 2, 3],
    );
  } finally {
    await store.close();
  }
});
