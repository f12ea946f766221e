import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startHarness, WS, type Harness } from '../support/harness.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Issue 36: the typed client is not published, so another project installs it from the tarball
 * `npm pack` makes, as client/README.md shows. Here: packed from this repository, installed into
 * a project of its own in a temporary folder (its one dependency from npm's cache), and the
 * README's example run there against a live server.
 */
describe('the typed client, packed and installed by another project', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vms-client-pack-'));
  let h: Harness;
  let baseUrl: string;
  let tarball: string;
  let files: string[];
  before(async () => {
    h = await startHarness();
    baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const { stdout } = await run(
      'npm',
      ['pack', '--workspace', 'client', '--pack-destination', dir, '--json'],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    tarball = join(dir, packed.filename);
    files = packed.files.map((f) => f.path);
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('packs the built client with its types and README, nothing of the build left over', () => {
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts'])
      assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
    assert.ok(!files.some((f) => f.endsWith('.tsbuildinfo')), files.join(', '));
  });

  it("installs into another project, where README's example lists every worker", async () => {
    const project = join(dir, 'project');
    await run('mkdir', ['-p', project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'a-project', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
      { cwd: project, maxBuffer: 16 * 1024 * 1024 },
    );
    const readme = readFileSync(join(ROOT, 'client/README.md'), 'utf8');
    assert.match(readme, /npm pack --workspace client/, 'the README says how to get the tarball');
    const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    writeFileSync(join(project, 'example.mjs'), example);
    const { stdout } = await run(process.execPath, ['example.mjs'], {
      cwd: project,
      env: { ...process.env, VMS_URL: baseUrl, VMS_TOKEN: h.tokens.staff },
    });
    const workers = await h.all<{ id: string }>(
      'SELECT id FROM workers WHERE workspace_id = ?',
      WS,
    );
    assert.equal(stdout.trim().split('\n').length, workers.length);
  });
});
