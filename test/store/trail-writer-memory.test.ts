/**
 * The access trail's writer thread on SQLite (side-file-writer.ts) keeps a small page cache
 * (issue 56): its connection only appends, and with better-sqlite3's default of 16 MB it kept
 * every page it wrote until the cache was full, 20 MB of the server's memory after some 10,000
 * answered requests. Writing 20 MB of events through it now leaves the process holding a few MB.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { chainStart } from '../../src/audit/event.js';
import { openStore } from '../../src/store/open-store.js';
import type { NewAuditEvent } from '../../src/store/sql/audit/audit-records.js';

const dir = mkdtempSync(join(tmpdir(), 'vms-trail-memory-'));
after(() => rmSync(dir, { recursive: true, force: true }));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: object) => void;
/** Anonymous memory of this process in MB, after a full collection that gives back V8's pool. */
const anonymousMb = () => {
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/RssAnon:\s+(\d+)/.exec(status)?.[1]) / 1024;
};

const CHAIN = 'chain_memory';
const EVENT_BYTES = 8 * 1024;
const event = (seq: number): NewAuditEvent => ({
  chainId: CHAIN,
  seq,
  at: Date.parse('2026-12-02T10:00:00Z') + seq,
  workspaceId: 'ws_business',
  clientId: null,
  operation: 'get_worker',
  revealedSet: null,
  // Text that does not repeat from one event to the next, as request ids and hashes do not.
  event: JSON.stringify({ seq, text: `${seq}`.padEnd(EVENT_BYTES, `${seq * 7919}`) }),
  prev: seq === 1 ? chainStart(CHAIN) : `hash${seq - 1}`,
  hash: `hash${seq}`,
  workers: [],
});

it('keeps a few MB of pages, however much the trail it writes grows', async (t) => {
  if (!process.platform.startsWith('linux')) return t.skip('reads /proc');
  const store = await openStore(join(dir, 'vms.db'), { create: true });
  try {
    const trail = store.auditTrail();
    await trail.startAuditChain({
      chainId: CHAIN,
      startedAt: Date.now(),
      anchor: chainStart(CHAIN),
      firstSeq: 1,
    });
    let seq = 1;
    const write = async (events: number) => {
      for (let done = 0; done < events; done += 50)
        await trail.appendAuditEvents(Array.from({ length: 50 }, () => event(seq++)));
    };
    // The thread started and its statements prepared before the measure.
    await write(100);
    const before = anonymousMb();
    await write(2500);
    const grew = anonymousMb() - before;
    assert.ok(grew < 8, `the process holds ${grew.toFixed(1)} MB more after 20 MB of events`);
  } finally {
    await store.close();
  }
});
