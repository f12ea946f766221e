#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --max-old-space-size=1024 --max-semi-space-size=4
// The `vms-read` command. It needs Node.js 24 (package.json `engines`): `npm install` puts that
// Node.js in node_modules/.bin, where npm scripts and `npx vms-read` find it. An older one is
// told so here, before any module loads (better-sqlite3 13 crashes Node.js 20 as it loads).
import { existsSync } from 'node:fs';
import module from 'node:module';

const NEEDED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < NEEDED_MAJOR) {
  console.error(
    `vms-read: needs Node.js ${NEEDED_MAJOR} or later, and this is ${process.versions.node}: ` +
      'run it through npm (npm start, or npx vms-read … in the project), which runs it on the ' +
      'Node.js 24 that npm install put in node_modules/.bin; or put that directory first on PATH ' +
      'and run node dist/src/cli/main.js …',
  );
  process.exit(1);
}
// Node keeps the code it compiled for the modules below (the store, TypeBox, the service: several
// hundred files) in a cache on disk (os.tmpdir()/node-compile-cache) and reuses it: a command's
// start costs about a tenth less CPU after its first run (0.66 -> 0.56 s user for --version on a
// 2-core machine). NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();
// The build bundles the command (scripts/build-cli.mjs): some sixty files in place of about 2,000
// modules, a server's start a fifth shorter. Run from the sources (npm run dev), or from a build
// without it, the command runs from its compiled modules, which are the same code.
const bundled = new URL('../../bundle/cli/dispatch.js', import.meta.url);
await import(existsSync(bundled) ? bundled.href : './dispatch.js');
