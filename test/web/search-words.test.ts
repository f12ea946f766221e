/**
 * A search in words (web/src/records/search-words.ts): what a folded search form says on a narrow
 * screen ("Draft · October 2026 · Fabrikam (FAB)"), and a period by its month when it is one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { foldedWords, periodWords } from '../../web/src/records/search-words.js';
import type { FilterField } from '../../web/src/records/search-fields.js';

const INVOICES: FilterField[] = [
  { kind: 'choice', param: 'status', label: 'Status', values: ['draft', 'issued'] },
  { kind: 'choice', param: 'type', label: 'Type', values: ['invoice', 'credit_note'] },
  { kind: 'supplier' },
  { kind: 'text', param: 'number', label: 'Number' },
  { kind: 'period' },
];

describe('a search in words', () => {
  it('says a whole month by its name, and any other period by its days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1990, max: 2100 }), fc.integer({ min: 1, max: 12 }), (y, m) => {
        const first = `${y}-${String(m).padStart(2, '0')}-01`;
        const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
        const name = new Date(Date.UTC(y, m - 1, 1)).toLocaleString('en', {
          month: 'long',
          timeZone: 'UTC',
        });
        assert.equal(periodWords(first, last), `${name} ${y}`);
        const dayBefore = new Date(Date.UTC(y, m, -1)).toISOString().slice(0, 10);
        assert.equal(periodWords(first, dayBefore), `${first} – ${dayBefore}`);
      }),
    );
    assert.equal(periodWords('2026-10-02', '2026-10-31'), '2026-10-02 – 2026-10-31');
    assert.equal(periodWords('2026-10-01', undefined), 'from 2026-10-01');
    assert.equal(periodWords(undefined, '2026-10-31'), 'to 2026-10-31');
  });

  it('folds a search to one line of what it searched for, suppliers and workers by name', () => {
    const suppliers = [{ value: 'sup_1', label: 'Fabrikam (FAB)' }];
    assert.equal(
      foldedWords(
        {
          filters: {
            status: 'draft',
            supplierId: 'sup_1',
            periodFrom: '2026-10-01',
            periodTo: '2026-10-31',
          },
          order: 'desc',
        },
        INVOICES,
        suppliers,
        [],
      ),
      'Draft · Fabrikam (FAB) · October 2026',
    );
    assert.equal(
      foldedWords(
        {
          filters: { type: 'credit_note', number: 'BUS-2026-10-00032', supplierId: 'sup_9' },
          order: 'asc',
        },
        INVOICES,
        suppliers,
        [],
      ),
      'Credit note · sup_9 · Number “BUS-2026-10-00032” · oldest first',
    );
    const timesheets: FilterField[] = [{ kind: 'worker' }];
    const workers = [{ value: 'wkr_1', label: 'Ada Lovelace · wkr_1' }];
    const search = (workerId: string) => ({ filters: { workerId }, order: 'desc' as const });
    assert.equal(foldedWords(search('wkr_1'), timesheets, [], workers), 'Ada Lovelace · wkr_1');
    assert.equal(foldedWords(search('wkr_2'), timesheets, [], workers), 'wkr_2');
    assert.equal(foldedWords({ filters: {}, order: 'desc' }, INVOICES, [], []), '', 'nothing ran');
  });
});
