import fc from 'fast-check';

/**
 * Text a client may send: a unique marker (so an echo can be found in an answer), NUL, lone
 * surrogates, control and bidirectional characters, very long strings, and numbers written in
 * every non-canonical way DESIGN §4.2 names.
 */

const HEX = [...'0123456789abcdef'];
const MARKER_PATTERN = /ZQ[0-9a-f]{12}/gi;

/** `ZQ` and 12 hex digits: found again in an answer only if the service echoed this input. */
export const marker = fc
  .string({ unit: fc.constantFrom(...HEX), minLength: 12, maxLength: 12 })
  .map((hex) => `ZQ${hex}`);

/** The markers a request carries anywhere (path, query, headers, body). */
export function markersIn(...parts: unknown[]): string[] {
  const text = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('\n');
  return [...new Set(text.match(MARKER_PATTERN) ?? [])];
}

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uDC00\uD800',
  '\r\n',
  '\t',
  '%',
  '%00',
  '%zz',
  '../../etc/passwd',
  "'; DROP TABLE workers; --",
  'null',
  '{}',
  '[]',
  '__proto__',
  'constructor',
  '\u202Eevil\u202C',
  'a\u200Bb',
  '👩‍💻',
  'ﷺ',
];

/** A marker with random text around it, sometimes with NUL or a lone surrogate beside it. */
export const markedText = fc
  .tuple(
    fc.string({ maxLength: 6 }),
    marker,
    fc.constantFrom('', '\u0000', '\uD800', ' ', '\uDC00x'),
    fc.string({ maxLength: 6 }),
  )
  .map(([before, m, odd, after]) => `${before}${m}${odd}${after}`);

/** Over every limit the schemas set (ids 64, values 256, cursors 512), and much longer. */
export const longText = fc
  .tuple(marker, fc.integer({ min: 60, max: 20_000 }), fc.constantFrom('x', 'é', '\u0000', '😀'))
  .map(([m, n, unit]) => m + unit.repeat(n));

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: markedText },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: longText },
);

const fullWidth = (digits: string) =>
  [...digits].map((d) => String.fromCharCode(0xff10 + Number(d))).join('');
const arabicIndic = (digits: string) =>
  [...digits].map((d) => String.fromCharCode(0x0660 + Number(d))).join('');

/** Ways to write a positive integer that are not canonical decimals (DESIGN §4.2). */
const NON_CANONICAL: ((n: number) => string)[] = [
  (n) => `0x${n.toString(16)}`,
  (n) => `0o${n.toString(8)}`,
  (n) => `0b${n.toString(2)}`,
  (n) => `${n}e0`,
  (n) => `${n / 10}e1`,
  (n) => `+${n}`,
  (n) => `0${n}`,
  (n) => `${n}.0`,
  (n) => ` ${n}`,
  (n) => `${n} `,
  (n) => `${n}\u0000`,
  (n) => `1_${String(n).padStart(3, '0')}`,
  (n) => fullWidth(String(n)),
  (n) => arabicIndic(String(n)),
  (n) => `${n},`,
];

export const nonCanonicalInteger = fc
  .tuple(fc.integer({ min: 1, max: 40 }), fc.nat(NON_CANONICAL.length - 1))
  .map(([n, i]) => NON_CANONICAL[i](n));

/** Anything a client may put where an integer goes in a query string. */
export const integerText: fc.Arbitrary<string> = fc.oneof(
  fc.nat(200).map(String),
  nonCanonicalInteger,
  fc.constantFrom(
    '0',
    '-1',
    '-0',
    '99999999999999999999999999',
    '9007199254740993',
    '1e400',
    'NaN',
    'Infinity',
    '',
  ),
  hostileText,
);

/** Percent-encodes like a browser, but writes lone surrogates as their (invalid) UTF-8 bytes. */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

/** A query string from pairs, each part encoded as given: repeats and odd keys stay as they are. */
export function queryString(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return '';
  return `?${pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')}`;
}
