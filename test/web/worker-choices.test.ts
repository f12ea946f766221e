import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_WORKER_CHOICES, workerChoices } from '../../web/src/records/choices.js';
import { newDataMark, type Session } from '../../web/src/session/session.js';

/**
 * The records search's worker box (web/src/records/choices.ts), in Node: the form waits for the
 * first page of workers only, and the rest (up to MAX_WORKER_CHOICES) arrive after it.
 */
const name = (value: string) => ({ kind: 'vms.provenance', trust: 'third_party', value });

/** A session whose worker list yields `count` workers, holding back after `release` of them. */
function sessionOf(count: number, hold = Infinity) {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let read = 0;
  const client = {
    async *items() {
      for (let i = 0; i < count; i++) {
        if (i === hold) await held;
        read++;
        yield { id: `wkr_${String(i).padStart(5, '0')}`, displayName: name(`Worker ${count - i}`) };
      }
    },
  };
  const session = { client, data: newDataMark(), reach: STAFF } as unknown as Session;
  return { session, release, read: () => read };
}

/** A staff token that may list workers and read their names (session/reach.ts). */
const STAFF = { role: 'staff', scopes: new Set(['read:workforce', 'read:pii']) };

describe('worker choices for the records search', () => {
  it('gives the first page while the rest is still being read, then every worker', async () => {
    const { session, release, read } = sessionOf(250, 100);
    const choices = workerChoices(session);
    const first = await choices.first;
    assert.equal(first.length, 100);
    assert.equal(read(), 100, 'the rest waits');
    assert.deepEqual(
      first.map((c) => c.label),
      [...first.map((c) => c.label)].sort((a, b) => a.localeCompare(b)),
    );
    assert.match(first[0].label, /^Worker \d+ · wkr_\d{5}$/);
    release();
    const all = await choices.all;
    assert.equal(all.length, 250);
    assert.equal(workerChoices(session), choices, 'read once a data mark');
    // The data moved (data-follow.ts makes a new mark): read again.
    session.data = newDataMark();
    assert.notEqual(workerChoices(session), choices, 'read again for a new mark');
  });

  it('stops at MAX_WORKER_CHOICES', async () => {
    const { session } = sessionOf(MAX_WORKER_CHOICES + 300);
    assert.equal((await workerChoices(session).all).length, MAX_WORKER_CHOICES);
  });

  it('gives everything as the first page when there is less than a page', async () => {
    const { session } = sessionOf(12);
    const choices = workerChoices(session);
    assert.equal((await choices.first).length, 12);
    assert.equal((await choices.all).length, 12);
  });

  it('gives none, not an error, to a token that may not list workers', async () => {
    const session = {
      client: {
        // eslint-disable-next-line require-yield
        async *items() {
          throw new Error('insufficient_scope');
        },
      },
      data: newDataMark(),
      reach: STAFF,
    } as unknown as Session;
    const choices = workerChoices(session);
    assert.deepEqual(await choices.first, []);
    assert.deepEqual(await choices.all, []);
  });

  it('asks nothing of a token whose scopes do not allow listing workers (issue 57)', async () => {
    let asked = 0;
    const session = {
      client: {
        // eslint-disable-next-line require-yield
        async *items() {
          asked++;
        },
      },
      data: newDataMark(),
      reach: { role: 'staff', scopes: new Set(['read:program']) },
    } as unknown as Session;
    const choices = workerChoices(session);
    assert.deepEqual(await choices.all, []);
    assert.equal(asked, 0);
  });
});
