// Bundles the web page (web/) into dist/web/: app.js (esbuild: web/src/main.ts with Chart.js and
// the typed client, minified, no source of its own fetched at run time), app.css (with the
// web/styles/ it imports) and index.html.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const OUT = 'dist/web';
const ASSETS = join(OUT, 'assets');

/** The newest modification time under `dir` (sources) or of `file`. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

export async function buildWebPage() {
  const inputs = Math.max(newest('web'), newest('client/dist'));
  if (existsSync(join(ASSETS, 'app.js')) && newest(join(ASSETS, 'app.js')) >= inputs) return;
  mkdirSync(ASSETS, { recursive: true });
  await build({
    entryPoints: ['web/src/main.ts'],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    outfile: join(ASSETS, 'app.js'),
    legalComments: 'linked',
    logLevel: 'warning',
  });
  // The style sheet and the files it @imports (web/styles/), as one minified file.
  await build({
    entryPoints: ['web/app.css'],
    bundle: true,
    minify: true,
    outfile: join(ASSETS, 'app.css'),
    logLevel: 'warning',
  });
  copyFileSync('web/index.html', join(OUT, 'index.html'));
}
