import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCsv } from '../../src/importer/csv-reader.js';

const records = (text: string) => {
  const result = readCsv(text);
  assert.equal(result.error, null);
  return result.records.map((r) => [r.line, ...r.fields]);
};

describe('readCsv (RFC 4180)', () => {
  it('splits fields on commas and records on LF or CRLF, with or without a final break', () => {
    assert.deepEqual(records('a,b\n1,2\n'), [
      [1, 'a', 'b'],
      [2, '1', '2'],
    ]);
    assert.deepEqual(records('a,b\r\n1,2\r\n3,4'), [
      [1, 'a', 'b'],
      [2, '1', '2'],
      [3, '3', '4'],
    ]);
  });

  it('keeps empty fields, leading, trailing and inner, and trims nothing', () => {
    assert.deepEqual(records(',x,\n  y , \n'), [
      [1, '', 'x', ''],
      [2, '  y ', ' '],
    ]);
  });

  it('reads quoted fields holding commas and doubled quotes', () => {
    assert.deepEqual(records('"a,b","say ""hi""",""\n'), [[1, 'a,b', 'say "hi"', '']]);
    assert.deepEqual(records('""""\n'), [[1, '"']]);
  });

  it('keeps line breaks inside quotes as written and numbers records by their first line', () => {
    assert.deepEqual(records('id,text\n1,"two\nlines"\n2,"crlf\r\nkept"\n3,x\n'), [
      [1, 'id', 'text'],
      [2, '1', 'two\nlines'],
      [4, '2', 'crlf\r\nkept'],
      [6, '3', 'x'],
    ]);
  });

  it('skips blank lines but counts them', () => {
    assert.deepEqual(records('a\n\n\r\nb\n\n'), [
      [1, 'a'],
      [4, 'b'],
    ]);
  });

  it('passes emoji, right-to-left and zero-width characters through unchanged', () => {
    const text = 'Zoë 🧑🏽‍💻 مرحبا\u200b\u200f';
    assert.deepEqual(records(`"${text}",${text}\n`), [[1, text, text]]);
  });

  it('reads an empty text as no records', () => {
    assert.deepEqual(readCsv(''), { records: [], error: null });
  });

  const malformed: [name: string, text: string, line: number, message: RegExp][] = [
    ['an unterminated quote, at the line it opened', 'a\n"open\nstill\n', 2, /unterminated/],
    ['a quote inside an unquoted field', 'a\nab"c\n', 2, /quote inside an unquoted field/],
    ['text after a closing quote', 'a\n"x\ny"z,1\n', 3, /after a closing quote/],
  ];
  for (const [name, text, line, message] of malformed) {
    it(`reports ${name}`, () => {
      const { error, records: read } = readCsv(text);
      assert.equal(error?.line, line);
      assert.match(error?.message ?? '', message);
      assert.deepEqual(
        read.map((r) => r.fields),
        [['a']],
      );
    });
  }
});
