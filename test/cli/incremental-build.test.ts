import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILD = join(ROOT, 'scripts', 'build.mjs');

/** A file of the project in `dir`, written with its folders. */
function writeIn(dir: string, path: string, text: string) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** scripts/build.mjs run in the project in `dir`. */
function buildIn(dir: string) {
  const result = spawnSync(process.execPath, [BUILD], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

/**
 * scripts/build.mjs (npm run build, npm start, npm test) on a two-file project with the
 * package's own tsconfig.json: it compiles only what changed, and dist/ never keeps a compiled
 * file whose source is gone (the test runner runs every dist/test/**\/*.test.js it finds).
 */
describe('the incremental build leaves no stale compiled file', () => {
  let dir: string;
  const write = (path: string, text: string) => writeIn(dir, path, text);
  const build = () => buildIn(dir);
  const built = (path: string) => existsSync(join(dir, 'dist', path));

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-build-'));
    writeFileSync(join(dir, 'tsconfig.json'), readFileSync(join(ROOT, 'tsconfig.json')));
    write('package.json', '{"type": "module"}\n');
    write('src/kept.ts', 'export const kept = 1;\n');
    write('src/gone.ts', 'export const gone = 2;\n');
    write('test/gone.test.ts', "import { gone } from '../src/gone.js';\nexport const g = gone;\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles src/ and test/, then does nothing while nothing changed', () => {
    const first = build();
    assert.equal(first.status, 0, first.output);
    for (const path of ['src/kept.js', 'src/kept.js.map', 'src/gone.js', 'test/gone.test.js'])
      assert.ok(built(path), path);
    const stamp = readFileSync(join(dir, 'dist', '.tsbuildinfo'), 'utf8');
    const again = build();
    assert.equal(again.status, 0, again.output);
    assert.equal(readFileSync(join(dir, 'dist', '.tsbuildinfo'), 'utf8'), stamp);
  });

  it('removes the compiled files of deleted sources', () => {
    rmSync(join(dir, 'src', 'gone.ts'));
    rmSync(join(dir, 'test', 'gone.test.ts'));
    const result = build();
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /removed 4 compiled files whose source is gone/);
    for (const path of ['src/gone.js', 'src/gone.js.map', 'test/gone.test.js'])
      assert.equal(built(path), false, path);
    assert.ok(built('src/kept.js'));
  });

  it('compiles again a compiled file removed by hand', () => {
    rmSync(join(dir, 'dist', 'src', 'kept.js'));
    const result = build();
    assert.equal(result.status, 0, result.output);
    assert.ok(built('src/kept.js'));
  });

  it('fails on a type error, every time until it is fixed', () => {
    write('src/kept.ts', "export const kept: number = 'one';\n");
    for (let i = 0; i < 2; i += 1) {
      const result = build();
      assert.notEqual(result.status, 0, result.output);
      assert.match(result.output, /src\/kept\.ts.*TS2322/);
    }
    write('src/kept.ts', 'export const kept = 1;\n');
    assert.equal(build().status, 0);
  });

  it('copies a changed JSON module, which tsc -b alone leaves as it was', () => {
    write('src/data.json', '{ "n": 1 }\n');
    write(
      'src/uses.ts',
      "import data from './data.json' with { type: 'json' };\nexport const n = data.n;\n",
    );
    assert.equal(build().status, 0);
    write('src/data.json', '{ "n": 2 }\n');
    const result = build();
    assert.equal(result.status, 0, result.output);
    assert.equal(JSON.parse(readFileSync(join(dir, 'dist', 'src', 'data.json'), 'utf8')).n, 2);
  });
});

/**
 * The command's bundle (scripts/build-cli.mjs) on a project with the package's own entry
 * (src/cli/main.ts): the entry runs the bundle, a changed source is in the next build's bundle,
 * a bundle removed or cut short is made again, and nothing is bundled again while nothing changed.
 */
describe('the build bundles the command and keeps the bundle current', () => {
  let dir: string;
  const write = (path: string, text: string) => writeIn(dir, path, text);
  const build = () => {
    const result = buildIn(dir);
    assert.equal(result.status, 0, result.output);
  };
  const run = () => {
    const result = spawnSync(process.execPath, [join(dir, 'dist/src/cli/main.js')], {
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.trim();
  };
  const inputs = () => join(dir, 'dist/bundle/cli/inputs.json');
  /** What dispatch.ts prints: its word, and whether it runs from the bundle. */
  const dispatch = (word: string) =>
    `import { said } from './said.js';\n` +
    `console.log(said('${word}'), import.meta.url.includes('/dist/bundle/cli/') ? 'bundled' : 'compiled');\n`;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-bundle-'));
    writeFileSync(join(dir, 'tsconfig.json'), readFileSync(join(ROOT, 'tsconfig.json')));
    write('package.json', '{"type": "module"}\n');
    // The types of node: and the bundler, from the repository's own packages.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    write('src/cli/main.ts', readFileSync(join(ROOT, 'src/cli/main.ts'), 'utf8'));
    write('src/cli/said.ts', 'export const said = (word: string) => word;\n');
    write('src/cli/dispatch.ts', dispatch('one'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the bundle the build made', () => {
    build();
    assert.ok(existsSync(inputs()));
    assert.equal(run(), 'one bundled');
  });

  it('bundles nothing again while nothing changed', () => {
    const made = statSync(inputs()).mtimeMs;
    build();
    assert.equal(statSync(inputs()).mtimeMs, made);
  });

  it('bundles a changed module again, one the entry imports through another', () => {
    write('src/cli/said.ts', 'export const said = (word: string) => word.toUpperCase();\n');
    build();
    assert.equal(run(), 'ONE bundled');
    write('src/cli/dispatch.ts', dispatch('two'));
    build();
    assert.equal(run(), 'TWO bundled');
  });

  it('makes the bundle again when it was removed, or cut short (no list of its inputs)', () => {
    rmSync(inputs());
    build();
    assert.ok(existsSync(inputs()));
    rmSync(join(dir, 'dist/bundle'), { recursive: true });
    assert.equal(run(), 'TWO compiled');
    build();
    assert.equal(run(), 'TWO bundled');
  });
});
