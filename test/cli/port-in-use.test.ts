import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listen } from '../../src/cli/serve-command.js';
import { readConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { freePort, runCli } from '../support/cli.js';

const line = (port: number) =>
  `vms-read: port ${port} on 127.0.0.1 is already in use: set PORT or pass --port to choose another\n`;

describe('a port in use is one line with the way out, exit 1, nothing left open', () => {
  let dir: string;
  let db: string;
  let port: number;
  let holder: Server;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-port-'));
    db = join(dir, 'empty.db');
    await (await openStore(db, { create: true })).close();
    port = await freePort();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => holder.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serve --port N', () => {
    const result = runCli(['serve', '--db', db, '--port', String(port)]);
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.stderr, line(port));
    assert.equal(result.stdout, '');
  });

  it('serve with PORT=N', () => {
    const result = runCli(['serve', '--db', db], { PORT: String(port), HOST: '' });
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.stderr, line(port));
  });

  it('demo (npm start) says so before it seeds anything', () => {
    const result = runCli(['demo', '--port', String(port)], {}, dir);
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.stderr, line(port));
    assert.equal(existsSync(join(dir, 'data')), false, 'no demo database was created');
  });

  it('listen() taken between the check and the bind closes the store before it throws', async () => {
    const store = await openStore(db);
    let closed = 0;
    const close = store.close.bind(store);
    store.close = () => {
      closed += 1;
      return close();
    };
    const handlers = process.listenerCount('SIGTERM');
    await assert.rejects(
      listen(store, db, { host: '127.0.0.1', port }, readConfig({ LOG_LEVEL: 'silent' })),
      (error: Error) => error.message === line(port).slice('vms-read: '.length, -1),
    );
    assert.equal(closed, 1, 'the store was closed');
    assert.equal(process.listenerCount('SIGTERM'), handlers, 'no shutdown handler left behind');
  });
});
