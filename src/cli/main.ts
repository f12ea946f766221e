#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-old-space-size=1024 --max-semi-space-size=4
// The `vms-read` command. It needs Node.js 24 (package.json `engines`): `npm install` puts that
// Node.js in node_modules/.bin, where npm scripts and `npx vms-read` find it. An older one is
// told so here, before any module loads (better-sqlite3 13 crashes Node.js 20 as it loads).
const NEEDED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < NEEDED_MAJOR) {
  console.error(
    `vms-read: needs Node.js ${NEEDED_MAJOR} or later, and this is ${process.versions.node}: ` +
      'run it through npm (npm start, npx vms-read), which uses the Node.js that npm install ' +
      'put in node_modules/.bin, or put that directory first on PATH',
  );
  process.exit(1);
}
await import('./dispatch.js');
