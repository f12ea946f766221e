// Bundles the web page (web/) into dist/web/: app.js (esbuild: web/src/main.ts with Chart.js and
// the typed client, minified, no source of its own fetched at run time), app.css (with the
// web/styles/ it imports), server-pages.css (the built-in server's pages, on the same
// web/styles/base.css), index.html, and the report view of MCP Apps (one HTML file).
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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
  // The sources, this script (the view's policy), and the bundled packages' versions.
  const inputs = Math.max(
    newest('web'),
    newest('client/dist'),
    newest('scripts/build-web.mjs'),
    newest('node_modules/.package-lock.json'),
  );
  if (
    existsSync(join(ASSETS, 'app.js')) &&
    newest(join(ASSETS, 'app.js')) >= inputs &&
    newest(VIEW) >= inputs
  )
    return;
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
  // The built-in authorization server's pages: the same base styles, their own card (the server
  // reads this file as it starts; src/oauth-server/pages.ts).
  await build({
    entryPoints: ['web/server-pages.css'],
    bundle: true,
    minify: true,
    outfile: join(ASSETS, 'server-pages.css'),
    logLevel: 'warning',
  });
  copyFileSync('web/index.html', join(OUT, 'index.html'));
  copyFileSync('web/favicon.svg', join(ASSETS, 'favicon.svg'));
  await buildReportView();
}

const VIEW = join(OUT, 'mcp-app', 'report-view.html');

/**
 * zod (under the Apps SDK's protocol layer) exports every language's error messages through one
 * namespace a bundler cannot trim: the view keeps English, the language zod is configured with,
 * and drops 240 kB of others it never shows.
 */
const zodInEnglish = {
  name: 'zod-in-english',
  setup(bundle) {
    bundle.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'zod')}`)
        ? { path: 'zod-locales', namespace: 'zod-in-english' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'zod-in-english' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: process.cwd(),
    }));
  },
};
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The report view of MCP Apps (web/src/mcp-app/): one self-contained HTML file, its script (the
 * view with the page's drawing code, Chart.js and the Apps SDK) and style sheet inline, under a
 * policy of its own that allows those two by hash and nothing else: no network, no other script,
 * no frames, no forms. The server reads it as the resource `ui://vms-read/report-view.html`.
 */
async function buildReportView() {
  const script = await build({
    entryPoints: ['web/src/mcp-app/main.ts'],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [zodInEnglish],
  });
  // The page's own style sheet, as buildWebPage just wrote it.
  const style = readFileSync(join(ASSETS, 'app.css'), 'utf8');
  // Inline, `</script` or `</style` in the code would end the element: escaped, as a JavaScript
  // string or regular expression reads `<\/` as `</`.
  const js = script.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
  const css = style.replace(/<\/(style)/gi, '<\\/$1');
  // What else would change how the HTML parser reads an inline script: none is in the bundle
  // today, and a build that brings one fails here rather than ships a view that breaks.
  if (/<!--|<script/i.test(js)) throw new Error('the report view script holds <!-- or <script');
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(js)}`,
    `style-src ${sha256(css)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vms-read report view</title>
<style>${css}</style>
</head>
<body class="mcp-app">
<main id="view" aria-live="polite"><p class="meta">Waiting for the result…</p></main>
<script type="module">${js}</script>
</body>
</html>
`;
  mkdirSync(join(OUT, 'mcp-app'), { recursive: true });
  writeFileSync(VIEW, html);
}
