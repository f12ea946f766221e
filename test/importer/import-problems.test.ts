import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblems, shown } from '../../src/importer/import-problems.js';

describe('formatProblems', () => {
  it('lists at most 100 problems, by file then line, and counts the rest', () => {
    const problems = Array.from({ length: 105 }, (_, i) => ({
      file: i % 2 ? 'b.csv' : 'a.csv',
      line: 200 - i,
      message: 'bad',
    }));
    const lines = formatProblems(problems);
    assert.equal(lines.length, 101);
    assert.equal(lines[0], 'a.csv:96: bad');
    assert.equal(lines[52], 'a.csv:200: bad');
    assert.equal(lines[53], 'b.csv:97: bad');
    assert.equal(lines[100], '… and 5 more problems');
    assert.deepEqual(formatProblems([{ file: 'x.csv', message: 'm' }]), ['x.csv: m']);
  });
});

describe('shown', () => {
  it('quotes a value as JSON and shortens a long one', () => {
    assert.equal(shown('a"b'), '"a\\"b"');
    assert.equal(shown(12.5), '12.5');
    assert.equal(shown('x'.repeat(100)), `"${'x'.repeat(56)}…`);
  });
});
