// Compiles src/ and test/ into dist/, incrementally: `tsc -b` keeps what it knows in
// dist/.tsbuildinfo and does nothing when no source changed since, so a warm `npm start` begins in
// well under a second instead of recompiling everything. Two things tsc -b does not do are done
// here, so dist/ never holds a compiled file that does not match the sources:
// - a compiled file whose source was deleted or renamed is removed (tsc leaves it, and the test
//   runner would run an old dist/test/**/*.test.js, the CLI could import an old module);
// - a compiled file missing while its source exists (removed by hand) forces a full build
//   (tsc -b trusts its build info and would not notice).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const ROOTS = ['src', 'test'];
const OUT = 'dist';

/** Every file under `dir`, as paths relative to the current directory. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

const sources = ROOTS.flatMap(filesUnder).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
const outputOf = (source) => join(OUT, source.replace(/\.ts$/, '.js'));
const force = sources.some((source) => !existsSync(outputOf(source)));

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// The typed client (client/, its own package) first: the tests import it as a package.
const projects = ['client/tsconfig.json', 'tsconfig.json'].filter((p) => existsSync(p));
for (const project of projects) {
  const args = [tsc, '-b', project, ...(force ? ['--force'] : [])];
  const built = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

// The web page (web/): type-checked with its own tsconfig, then bundled by esbuild (its
// TypeScript, Chart.js and the typed client in one minified file) into dist/web/, which the
// server serves (src/http/web-app.ts). The bundle is rebuilt only when a web source changed.
if (existsSync('web/tsconfig.json')) {
  const checked = spawnSync(process.execPath, [tsc, '-b', 'web/tsconfig.json'], {
    stdio: 'inherit',
  });
  if (checked.status !== 0) process.exit(checked.status ?? 1);
  const { buildWebPage } = await import('./build-web.mjs');
  await buildWebPage();
}

// A JSON module (resolveJsonModule) is emitted by a full build, but tsc -b does not notice when
// one alone changed: copy each that differs, so dist/ always holds the current one.
for (const json of ROOTS.flatMap(filesUnder).filter((f) => f.endsWith('.json'))) {
  const target = join(OUT, json);
  if (existsSync(target) && readFileSync(target, 'utf8') === readFileSync(json, 'utf8')) continue;
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(json, target);
}

// The command runs as it will once installed (`./dist/src/cli/main.js`, its first line choosing
// Node and its flags).
const command = join(OUT, 'src/cli/main.js');
if (existsSync(command)) chmodSync(command, 0o755);

const kept = new Set(sources.map(outputOf));
let removed = 0;
for (const root of ROOTS) {
  for (const file of filesUnder(join(OUT, root))) {
    const js = file.endsWith('.js.map') ? file.slice(0, -'.map'.length) : file;
    if (js.endsWith('.js') && !kept.has(js)) {
      rmSync(file);
      removed += 1;
    }
  }
}
if (removed > 0) console.error(`build: removed ${removed} compiled files whose source is gone`);

// The command and its worker threads bundled (scripts/build-cli.mjs), from the files just
// compiled; dist/src/cli/main.js runs the bundle when it is there.
const { buildCliBundle } = await import('./build-cli.mjs');
await buildCliBundle();
