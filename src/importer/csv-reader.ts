/**
 * An RFC 4180 reader: comma-separated fields, records ending in CRLF or LF, fields in double
 * quotes may hold commas, line breaks and doubled quotes (`""` is one `"`). Nothing is trimmed.
 * Stricter than most readers on purpose, so a broken export is reported rather than misread:
 * a quote inside an unquoted field, text after a closing quote and an unterminated quote are
 * errors. Blank lines between records are skipped. No csv package is installed, hence this file.
 */

export interface CsvRecord {
  /** Physical line (1-based) on which the record starts. */
  line: number;
  fields: string[];
}

export interface CsvResult {
  records: CsvRecord[];
  /** The first malformed spot; reading stops there. */
  error: { line: number; message: string } | null;
}

/** The length of the line break at `i` (2 for CRLF, 1 for LF), or 0 when there is none. */
function breakAt(text: string, i: number): number {
  if (text[i] === '\n') return 1;
  if (text[i] === '\r' && text[i + 1] === '\n') return 2;
  return 0;
}

export function readCsv(text: string): CsvResult {
  const records: CsvRecord[] = [];
  const fail = (line: number, message: string): CsvResult => ({
    records,
    error: { line, message },
  });
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const blank = breakAt(text, i);
    if (blank) {
      i += blank;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      if (text[i] === '"') {
        const opened = line;
        let value = '';
        let from = ++i;
        for (;;) {
          if (i >= text.length) return fail(opened, 'unterminated quoted field');
          if (text[i] === '"') {
            value += text.slice(from, i);
            if (text[i + 1] !== '"') break;
            value += '"';
            i += 2;
            from = i;
            continue;
          }
          if (text[i] === '\n') line++;
          i++;
        }
        i++;
        if (i < text.length && text[i] !== ',' && !breakAt(text, i)) {
          return fail(line, 'unexpected text after a closing quote');
        }
        fields.push(value);
      } else {
        const from = i;
        while (i < text.length && text[i] !== ',' && !breakAt(text, i)) {
          if (text[i] === '"') {
            return fail(
              line,
              'a quote inside an unquoted field (quote the field and double the quote)',
            );
          }
          i++;
        }
        fields.push(text.slice(from, i));
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      const end = breakAt(text, i);
      if (end) {
        i += end;
        line++;
      }
      break;
    }
    records.push({ line: start, fields });
  }
  return { records, error: null };
}
