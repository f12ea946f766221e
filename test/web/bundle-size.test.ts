import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { gzipSync } from 'node:zlib';

/** The page's whole script and style (dist/web/assets, as `npm run build` makes them) stay small. */
const LIMIT = 100 * 1024;

it('keeps the page under 100 kB gzipped, script and style together', () => {
  const bytes = ['app.js', 'app.css']
    .map((name) => gzipSync(readFileSync(`dist/web/assets/${name}`)).length)
    .reduce((a, b) => a + b, 0);
  assert.ok(bytes > 10_000, `the bundle was built (${bytes} bytes)`);
  assert.ok(bytes < LIMIT, `${bytes} bytes gzipped, under ${LIMIT}`);
});
