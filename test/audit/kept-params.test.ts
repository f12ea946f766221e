/**
 * What the trail keeps of parameters, as pure rules (kept-params.ts, id-lookup.ts): enumerated
 * values, dates and numbers as they are, other text as its length; an id parameter kept when the
 * answer showed it or the store knows it, a list of ids element by element.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { keptParams, typedText } from '../../src/audit/kept-params.js';
import { ClaimSettler } from '../../src/audit/id-lookup.js';
import type { AnyOperation } from '../../src/operations/operation.js';
import { PeriodSchema } from '../../src/semantic/query-schema.js';

const operation = {
  name: 'list_things',
  input: Type.Object({
    ids: Type.Optional(Type.String()),
    workerId: Type.Optional(Type.String()),
    status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
    from: Type.Optional(Type.String({ format: 'date' })),
    search: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer()),
    period: Type.Optional(PeriodSchema),
  }),
  idParams: { ids: 'worker', workerId: 'worker' },
} as unknown as AnyOperation;

const nothingShown = { answered: true, shown: false, revealed: [] as { id: string }[] };

describe('keptParams', () => {
  it('keeps closed values and numbers, and any other text as its length', () => {
    const { params, claims } = keptParams(
      operation,
      {
        status: 'open',
        from: '2026-01-31',
        search: 'Kwame Quinn 🙂',
        limit: 5,
        period: { kind: 'relative', unit: 'month', offset: -1 },
        cursor: 'abc',
      },
      nothingShown,
    );
    assert.deepEqual(params, {
      status: 'open',
      from: '2026-01-31',
      search: { text: true, length: 13 },
      limit: 5,
      period: { kind: 'relative', unit: 'month', offset: -1 },
    });
    assert.deepEqual(claims, []);
  });

  it('keeps an id the answer showed, and asks about one it did not', () => {
    const shown = keptParams(operation, { workerId: 'wkr_1' }, { ...nothingShown, shown: true });
    assert.deepEqual(shown, { params: { workerId: 'wkr_1' }, claims: [] });
    const asked = keptParams(operation, { workerId: 'Kwame' }, nothingShown);
    assert.deepEqual(asked.params, { workerId: 'Kwame' });
    assert.deepEqual(
      asked.claims.map((c) => [c.kind, c.value]),
      [['worker', 'Kwame']],
    );
  });

  it('settles a list of ids element by element', async () => {
    const { params, claims } = keptParams(
      operation,
      { ids: 'wkr_1,wkr_2,Kwame' },
      { ...nothingShown, revealed: [{ id: 'wkr_1' }] },
    );
    assert.deepEqual(
      claims.map((c) => c.value),
      ['wkr_2', 'Kwame'],
    );
    const asked: string[][] = [];
    const settler = new ClaimSettler({
      existing: async (_kind, values) => {
        asked.push([...values]);
        return new Set(values.filter((v) => v.startsWith('wkr_')));
      },
    });
    await settler.settle(claims);
    assert.deepEqual(params, { ids: ['wkr_1', 'wkr_2', typedText('Kwame')] });
    // What the store said names a worker is remembered: asked once.
    const again = keptParams(operation, { workerId: 'wkr_2' }, nothingShown);
    await settler.settle(again.claims);
    assert.deepEqual(again.params, { workerId: 'wkr_2' });
    assert.deepEqual(asked, [['wkr_2', 'Kwame']]);
  });
});
