/**
 * An RFC 4180 reader: comma-separated fields, records ending in CRLF or LF, fields in double
 * quotes may hold commas, line breaks and doubled quotes (`""` is one `"`). Nothing is trimmed.
 * Stricter than most readers on purpose, so a broken export is reported rather than misread:
 * a quote inside an unquoted field, text after a closing quote and an unterminated quote are
 * errors. Blank lines between records are skipped. No csv package is installed, hence this file:
 * its messages are part of the importer's contract, and it reads a stream a record at a time
 * (csvRecords), so a file of any size is read in constant memory.
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

/** Reads `text`, whose first line is line `firstLine` of the file. */
export function readCsv(text: string, firstLine = 1): CsvResult {
  const records: CsvRecord[] = [];
  const fail = (line: number, message: string): CsvResult => ({
    records,
    error: { line, message },
  });
  let i = 0;
  let line = firstLine;
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

/**
 * Text read at most before a record must have ended: a row of the longest values every column
 * allows is far shorter, and memory stays bounded whatever the file (a stray quote, a huge field).
 */
export const MAX_RECORD_CHARS = 1024 * 1024;

/**
 * Where the text can be cut so that only whole records are before the cut: after the last line
 * break preceded by an even number of quotes (outside every quoted field; a doubled quote counts
 * twice). -1 when there is none. A malformed quote can misplace the cut, but the reader then stops
 * at that quote anyway, exactly as it would on the whole text.
 */
function lastRecordEnd(text: string): number {
  let quotes = 0;
  let end = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quotes++;
    else if (c === 10 && quotes % 2 === 0) end = i + 1;
  }
  return end;
}

const countLines = (text: string) => {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/**
 * The records of a CSV text arriving in chunks, read as readCsv reads the whole text (the same
 * records, lines and first error), holding one chunk and one unfinished record at a time.
 */
export async function* csvRecords(
  chunks: AsyncIterable<string>,
): AsyncGenerator<CsvRecord[], { line: number; message: string } | null> {
  let pending = '';
  let line = 1;
  const read = (text: string) => {
    const result = readCsv(text, line);
    line += countLines(text);
    return result;
  };
  for await (const chunk of chunks) {
    pending += chunk;
    const cut = lastRecordEnd(pending);
    if (cut === -1 && pending.length > MAX_RECORD_CHARS)
      return {
        line,
        message: `a record longer than ${MAX_RECORD_CHARS.toLocaleString('en')} characters starts here (a value too long, or a quote never closed); the rest of the file is not read`,
      };
    if (cut === -1) continue;
    const result = read(pending.slice(0, cut));
    pending = pending.slice(cut);
    if (result.records.length > 0) yield result.records;
    if (result.error) return result.error;
  }
  const result = read(pending);
  if (result.records.length > 0) yield result.records;
  return result.error;
}
