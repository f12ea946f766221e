import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The README's first requests run as written (issue 57: it showed a get as `{"item": …}`, and
 * the API answers `{"data": {"item": …}}`): each `curl` line of its "A first request" block runs
 * in bash against a server on the tiny seed, with `T` a staff token and `B` the server, and each
 * answer begins as the comment under it shows it, up to the comment's first "…".
 */
describe("the README's first requests, as written", () => {
  let h: Harness;
  let base: string;
  before(async () => {
    h = await startHarness();
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => h.close());

  /** The block's commands, each with the first line of the comment that shows its answer. */
  function examples(): { command: string; shown: string }[] {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## A first request'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = block.split('\n');
    return lines.flatMap((line, i) =>
      line.startsWith('curl ') ? [{ command: line, shown: lines[i + 1].replace(/^# /, '') }] : [],
    );
  }

  it('shows a list and a get, each answered as shown', async () => {
    const shown = examples();
    assert.equal(shown.length, 2, JSON.stringify(shown));
    for (const { command, shown: answer } of shown) {
      assert.ok(answer.startsWith('{'), `${command}: its answer is shown under it`);
      const { stdout } = await run('bash', ['-c', command], {
        env: { ...process.env, T: h.tokens.staff, B: base },
      });
      const body = JSON.parse(stdout) as { data: unknown; request_id: string };
      assert.equal(typeof body.request_id, 'string');
      const prefix = answer.slice(0, answer.indexOf('…'));
      assert.ok(stdout.startsWith(prefix), `${command}\nshown: ${prefix}\ngot:   ${stdout}`);
    }
  });
});
