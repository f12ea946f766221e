// The test reporter of `npm test`: a line per test file as it finishes (with its seconds), every
// failure in full (its suite path, location and error), skipped tests with their reason, the
// totals (skipped tests and suites counted, the files that skipped some named) and the ten
// slowest files.
// The full TAP report goes to dist/test-results.tap (see run-tests.mjs).
import { relative } from 'node:path';
import { inspect } from 'node:util';

const MAX_ERROR_LINES = 40;
const SLOWEST = 10;

function errorText(error) {
  const shown = error?.failureType === 'testCodeFailure' && error.cause ? error.cause : error;
  const lines = inspect(shown, { depth: 4, colors: false })
    .split('\n')
    .filter((line) => !/^\s+at .*node:internal\//.test(line));
  const cut =
    lines.length > MAX_ERROR_LINES ? [`… ${lines.length - MAX_ERROR_LINES} more lines`] : [];
  return [...lines.slice(0, MAX_ERROR_LINES), ...cut].map((line) => `      ${line}`).join('\n');
}

export default async function* conciseReporter(source) {
  const paths = new Map(); // file → names of the open tests by nesting
  const output = new Map(); // file → what it wrote to stdout and stderr
  const totals = [];
  const durations = new Map(); // file → seconds
  const skippedFiles = new Map(); // file → tests or suites it skipped
  let failures = 0;
  for await (const { type, data } of source) {
    const file = data.file ? relative(process.cwd(), data.file) : '';
    if (type === 'test:start') {
      const path = paths.get(file) ?? [];
      path[data.nesting] = data.name;
      path.length = data.nesting + 1;
      paths.set(file, path);
    } else if (type === 'test:stdout' || type === 'test:stderr') {
      output.set(file, (output.get(file) ?? '') + data.message);
    } else if (type === 'test:fail' && data.details.error?.failureType !== 'subtestsFailed') {
      failures++;
      const isFile = data.nesting === 0 && data.file && data.name === file;
      const name = isFile
        ? 'the file failed outside any test'
        : (paths.get(file) ?? []).slice(0, data.nesting + 1).join(' › ');
      yield `\n✗ ${file}:${data.line}\n    ${name}\n${errorText(data.details.error)}\n`;
      const written = output.get(file);
      if (isFile && written) yield `    output of the file:\n${written.replace(/^/gm, '      ')}\n`;
    } else if (type === 'test:pass' && data.skip !== undefined) {
      skippedFiles.set(file, (skippedFiles.get(file) ?? 0) + 1);
      yield `- skipped: ${file} › ${data.name}: ${data.skip === true ? 'no reason given' : data.skip}\n`;
    } else if (type === 'test:complete' && data.nesting === 0 && data.name === file) {
      // Node names a file's own test by the path it was given (relative), `data.file` is absolute.
      const seconds = data.details.duration_ms / 1000;
      durations.set(file, seconds);
      yield `${data.details.error ? '✗' : '✓'} ${file} (${seconds.toFixed(1)} s)\n`;
    } else if (
      type === 'test:diagnostic' &&
      data.nesting === 0 &&
      /^[a-z_]+ [\d.]+$/.test(data.message)
    ) {
      totals.push(data.message);
    }
  }
  const figure = (name) => totals.find((t) => t.startsWith(`${name} `))?.split(' ')[1] ?? '?';
  const seconds = (Number(figure('duration_ms')) / 1000).toFixed(1);
  const slowest = [...durations].sort(([, a], [, b]) => b - a).slice(0, SLOWEST);
  if (durations.size > SLOWEST) {
    yield `\nthe ${SLOWEST} slowest files:\n`;
    for (const [file, s] of slowest) yield `  ${s.toFixed(1).padStart(7)} s  ${file}\n`;
  }
  // Node counts a skipped suite (a describe given `skip`) as a suite, not among the skipped tests:
  // the skipped here are every test and suite reported skipped.
  const skipped = [...skippedFiles.values()].reduce((sum, n) => sum + n, 0);
  const tests = Number(figure('tests')) + skipped - Number(figure('skipped'));
  yield (
    `\n${tests} tests: ${figure('pass')} passed, ${figure('fail')} failed, ` +
    `${skipped} skipped, ${figure('cancelled')} cancelled in ${seconds} s` +
    (failures ? ` (${failures} failures shown above)` : '') +
    '\n' +
    (skippedFiles.size
      ? `skipped in ${skippedFiles.size} files: ${[...skippedFiles.keys()].join(', ')}\n`
      : '')
  );
}
