import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePeriod } from '../../src/semantic/period.js';
import type { Period, TimeRange } from '../../src/semantic/query-schema.js';

interface Case {
  name: string;
  today: string;
  period: Period;
  expected: TimeRange;
}

const range = (from: string, to: string): TimeRange => ({ from, to });
const month = (offset: number): Period => ({ kind: 'relative', unit: 'month', offset });
const quarterRel = (offset: number): Period => ({ kind: 'relative', unit: 'quarter', offset });
const year = (offset: number): Period => ({ kind: 'relative', unit: 'year', offset });
const quarter = (q: number, y?: number): Period =>
  y === undefined ? { kind: 'quarter', quarter: q } : { kind: 'quarter', quarter: q, year: y };

function check(cases: Case[]) {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(resolvePeriod(c.period, new Date(c.today)), c.expected);
    });
  }
}

describe('resolvePeriod: relative months', () => {
  check([
    {
      name: 'offset 0 is the current calendar month',
      today: '2026-01-15T12:00:00Z',
      period: month(0),
      expected: range('2026-01-01', '2026-01-31'),
    },
    {
      name: 'January with offset -1 is the previous December',
      today: '2026-01-15T12:00:00Z',
      period: month(-1),
      expected: range('2025-12-01', '2025-12-31'),
    },
    {
      name: 'offset -13 from January crosses two year boundaries correctly',
      today: '2026-01-15T12:00:00Z',
      period: month(-13),
      expected: range('2024-12-01', '2024-12-31'),
    },
    {
      name: 'February of a leap year (2024) ends on the 29th',
      today: '2024-03-10T08:00:00Z',
      period: month(-1),
      expected: range('2024-02-01', '2024-02-29'),
    },
    {
      name: 'February of a common year (2025) ends on the 28th',
      today: '2025-03-10T08:00:00Z',
      period: month(-1),
      expected: range('2025-02-01', '2025-02-28'),
    },
    {
      name: 'February 2024 is also reached as offset 0 on the leap day itself',
      today: '2024-02-29T23:59:59.999Z',
      period: month(0),
      expected: range('2024-02-01', '2024-02-29'),
    },
    {
      name: 'offset -24 is the same month two years earlier',
      today: '2026-01-15T12:00:00Z',
      period: month(-24),
      expected: range('2024-01-01', '2024-01-31'),
    },
    {
      name: 'a 30-day month ends on the 30th',
      today: '2026-05-31T12:00:00Z',
      period: month(-1),
      expected: range('2026-04-01', '2026-04-30'),
    },
  ]);
});

describe('resolvePeriod: relative quarters', () => {
  check([
    {
      name: 'offset 0 in January is Q1 of the current year',
      today: '2026-01-15T12:00:00Z',
      period: quarterRel(0),
      expected: range('2026-01-01', '2026-03-31'),
    },
    {
      name: 'Q1 with offset -1 is Q4 of the previous year',
      today: '2026-01-15T12:00:00Z',
      period: quarterRel(-1),
      expected: range('2025-10-01', '2025-12-31'),
    },
    {
      name: 'offset -1 in August is Q2 of the same year',
      today: '2026-08-20T00:00:00Z',
      period: quarterRel(-1),
      expected: range('2026-04-01', '2026-06-30'),
    },
    {
      name: 'offset 0 on the last day of the year is Q4',
      today: '2026-12-31T23:59:59Z',
      period: quarterRel(0),
      expected: range('2026-10-01', '2026-12-31'),
    },
    {
      name: 'offset -24 is the same quarter six years earlier',
      today: '2026-01-15T12:00:00Z',
      period: quarterRel(-24),
      expected: range('2020-01-01', '2020-03-31'),
    },
    {
      name: 'Q1 of a leap year still ends on March 31',
      today: '2024-05-01T00:00:00Z',
      period: quarterRel(-1),
      expected: range('2024-01-01', '2024-03-31'),
    },
  ]);
});

describe('resolvePeriod: relative years', () => {
  check([
    {
      name: 'offset 0 is the current calendar year',
      today: '2026-01-15T12:00:00Z',
      period: year(0),
      expected: range('2026-01-01', '2026-12-31'),
    },
    {
      name: 'offset -1 is the previous calendar year',
      today: '2026-01-15T12:00:00Z',
      period: year(-1),
      expected: range('2025-01-01', '2025-12-31'),
    },
    {
      name: 'offset -24 is 24 calendar years back',
      today: '2026-06-30T12:00:00Z',
      period: year(-24),
      expected: range('2002-01-01', '2002-12-31'),
    },
  ]);
});

describe('resolvePeriod: quarter with a year', () => {
  check([
    {
      name: 'Q1 2024 is January to March 2024',
      today: '2026-01-15T12:00:00Z',
      period: quarter(1, 2024),
      expected: range('2024-01-01', '2024-03-31'),
    },
    {
      name: 'Q3 2025 is July to September 2025',
      today: '2026-01-15T12:00:00Z',
      period: quarter(3, 2025),
      expected: range('2025-07-01', '2025-09-30'),
    },
    {
      name: 'a future quarter with an explicit year is taken as given (Q4 2100)',
      today: '2026-01-15T12:00:00Z',
      period: quarter(4, 2100),
      expected: range('2100-10-01', '2100-12-31'),
    },
    {
      name: 'the lowest allowed year is resolved (Q2 2000)',
      today: '2026-01-15T12:00:00Z',
      period: quarter(2, 2000),
      expected: range('2000-04-01', '2000-06-30'),
    },
  ]);
});

describe('resolvePeriod: quarter without a year is the most recent one already started', () => {
  check([
    {
      name: 'the current quarter (Q2 in May) is this year',
      today: '2026-05-10T12:00:00Z',
      period: quarter(2),
      expected: range('2026-04-01', '2026-06-30'),
    },
    {
      name: 'an earlier quarter of this year (Q1 in May) is this year',
      today: '2026-05-10T12:00:00Z',
      period: quarter(1),
      expected: range('2026-01-01', '2026-03-31'),
    },
    {
      name: 'a quarter not yet started (Q3 in May) is last year',
      today: '2026-05-10T12:00:00Z',
      period: quarter(3),
      expected: range('2025-07-01', '2025-09-30'),
    },
    {
      name: 'Q4 in January is last year',
      today: '2026-01-15T12:00:00Z',
      period: quarter(4),
      expected: range('2025-10-01', '2025-12-31'),
    },
    {
      name: 'a quarter starting today has already started',
      today: '2026-04-01T00:00:00.000Z',
      period: quarter(2),
      expected: range('2026-04-01', '2026-06-30'),
    },
    {
      name: 'a quarter starting tomorrow has not started',
      today: '2026-03-31T23:59:59.999Z',
      period: quarter(2),
      expected: range('2025-04-01', '2025-06-30'),
    },
  ]);
});

describe('resolvePeriod: today is taken in UTC', () => {
  check([
    {
      name: '2026-03-31T23:30:00-02:00 is April 1 UTC: current month is April',
      today: '2026-03-31T23:30:00-02:00',
      period: month(0),
      expected: range('2026-04-01', '2026-04-30'),
    },
    {
      name: '2026-03-31T23:30:00-02:00 is April 1 UTC: current quarter is Q2',
      today: '2026-03-31T23:30:00-02:00',
      period: quarterRel(0),
      expected: range('2026-04-01', '2026-06-30'),
    },
    {
      name: '2026-03-31T23:30:00-02:00 is April 1 UTC: Q2 without a year has started',
      today: '2026-03-31T23:30:00-02:00',
      period: quarter(2),
      expected: range('2026-04-01', '2026-06-30'),
    },
    {
      name: '2026-01-01T00:30:00+02:00 is still 2025 in UTC',
      today: '2026-01-01T00:30:00+02:00',
      period: year(0),
      expected: range('2025-01-01', '2025-12-31'),
    },
  ]);
});
