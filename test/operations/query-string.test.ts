/**
 * Query strings are read in time linear in their length and only as far as can matter
 * (issue 21, item 3): a name repeated thousands of times costs what as many names do, and
 * nothing past the 64th parameter is read (any such request is a 404 already).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_QUERY_PARAMETERS, parseQueryString } from '../../src/operations/query-string.js';

describe('parseQueryString', () => {
  it('keeps each name as given, a repeated one as its values in order', () => {
    const parsed = parseQueryString('limit=1&limit=2&__proto__=x&limit=3&order=asc');
    assert.deepEqual(Object.entries(parsed), [
      ['limit', ['1', '2', '3']],
      ['__proto__', 'x'],
      ['order', 'asc'],
    ]);
  });

  it(`reads no more than ${MAX_QUERY_PARAMETERS} parameters, however many the text holds`, () => {
    const parsed = parseQueryString(Array(7_900).fill('limit=1').join('&'));
    assert.equal((parsed.limit as string[]).length, MAX_QUERY_PARAMETERS);
    const names = parseQueryString(Array.from({ length: 500 }, (_, i) => `p${i}=1`).join('&'));
    assert.equal(Object.keys(names).length, MAX_QUERY_PARAMETERS);
  });
});
