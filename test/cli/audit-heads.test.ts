/**
 * The access trail's command as an operator uses it (DESIGN §4.17): the server logs each chain's
 * head (every minute it moved, and at shutdown) and `audit heads` prints them; `audit verify
 * --heads` takes either and exits 1 when a chain was cut at its end or removed whole, which the
 * chain alone cannot show; what a client wrote (a user agent with ESC, a line break or U+202E)
 * is written as escapes in every output; `audit list | head -1` ends quietly. Both stores.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuditTrail } from '../../src/audit/trail.js';
import type { Principal } from '../../src/auth/principal.js';
import { CLI, exitOf, freePort, runCli, startServer } from '../support/cli.js';
import { staffToken } from '../support/harness.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { auditSqlOf } from '../support/audit.js';

/**
 * What could disguise a line of `audit list`: a right-to-left override, a C1 control and a line
 * separator, as a client sends them (UTF-8 in its User-Agent; HTTP takes no ESC or line break
 * there, which reach the trail through what a client registered or wrote in a tool call).
 */
const HOSTILE_AGENT = 'agent \u0085 \u2028 \u202egnp.exe';
/** ESC and a line break, in a client's registered name (the trail keeps it as the client wrote it). */
const HOSTILE_NAME = 'app\u001b[31m red\nsecond line \u202eexe';

/** An answered request of no operation, with a user agent: an event the trail writes as it is. */
const answered = (i: number, userAgent: string, principal: Principal | null = null) => ({
  requestId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  at: Date.now(),
  transport: 'rest' as const,
  address: '192.0.2.1',
  userAgent,
  principal,
  operation: null,
  seen: {},
  status: 200,
  code: null,
});

/** A person signed in through a client whose registered name is `clientName`. */
const oauthCaller = (clientName: string) =>
  ({
    workspaceId: 'ws_business',
    role: 'staff',
    tokenId: 'grant_x',
    grant: { issuer: 'https://vms.example', subject: 'tok_a', clientId: 'client_x', clientName },
  }) as unknown as Principal;

for (const dialect of DIALECTS)
  describe(`vms-read audit heads, escapes and pipes (${dialect})`, { timeout: 180_000 }, () => {
    let database: TestDatabase;
    let folder = '';
    let logFile = '';
    before(async () => {
      database = await openTestDatabase(dialect);
      folder = mkdtempSync(join(tmpdir(), 'vms-read-heads-'));
      const token = await staffToken(database.store);
      const port = await freePort();
      const { child, output } = await startServer(
        ['serve', '--db', database.db, '--port', String(port)],
        port,
        { LOG_LEVEL: 'info' },
      );
      try {
        for (const agent of ['plain/1', HOSTILE_AGENT]) {
          const answer = await fetch(`http://127.0.0.1:${port}/api/v1/suppliers?limit=1`, {
            // The UTF-8 bytes as they go on the wire (fetch takes a header as bytes).
            headers: {
              authorization: `Bearer ${token}`,
              'user-agent': Buffer.from(agent, 'utf8').toString('latin1'),
            },
          });
          assert.equal(answer.status, 200);
        }
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exitOf(child), 0);
      logFile = join(folder, 'server.log');
      writeFileSync(logFile, output());
    });
    after(async () => {
      rmSync(folder, { recursive: true, force: true });
      await database.drop();
    });

    const cli = (args: string[]) => runCli(['audit', ...args, '--db', database.db]);

    it('writes control and bidirectional characters as escapes in every output', async () => {
      const text = cli(['list']).stdout;
      const json = cli(['list', '--json']).stdout;
      const ocsf = cli(['list', '--format', 'ocsf']).stdout;
      // eslint-disable-next-line no-control-regex -- ESC is what it looks for
      const unsafe = /[\u001b\u0085\u2028\u202e]/;
      for (const out of [json, ocsf]) {
        assert.ok(!unsafe.test(out), 'no raw U+202E, U+0085, U+2028');
        assert.ok(['\\u202e', '\\u0085', '\\u2028'].every((e) => out.includes(e)));
      }
      assert.ok(!unsafe.test(text));
      const [newest] = json.trim().split('\n');
      assert.equal(JSON.parse(newest).userAgent, HOSTILE_AGENT, 'JSON reads back as sent');

      const trail = new AuditTrail(database.store.auditTrail());
      trail.answered(answered(0, 'plain/1', oauthCaller(HOSTILE_NAME)));
      await trail.close();
      const [line] = cli(['list']).stdout.split('\n');
      assert.ok(!unsafe.test(line), line);
      assert.ok(line.includes('app\\u001b[31m red\\nsecond line \\u202eexe'), line);
      const [written] = cli(['list', '--json']).stdout.split('\n');
      assert.ok(!unsafe.test(written));
      assert.equal(JSON.parse(written).caller.clientName, HOSTILE_NAME);
    });

    it('logs the heads at shutdown, as `audit heads` prints them, and verifies with either', () => {
      const printed = cli(['heads']);
      assert.equal(printed.status, 0, printed.stderr);
      const heads = printed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // The server's chain, and the one the escape test's own trail wrote.
      assert.equal(heads.length, 2, 'a chain per process that wrote');
      assert.deepEqual(Object.keys(heads[0]).sort(), ['chain', 'hash', 'seq']);
      const logged = (readFileSync(logFile, 'utf8').match(/^.*"access trail head".*$/gm) ?? []).map(
        (l) => JSON.parse(l),
      );
      assert.equal(logged.length, 1);
      assert.deepEqual(
        heads.find((head) => head.chain === logged[0].chain),
        { chain: logged[0].chain, seq: logged[0].seq, hash: logged[0].hash },
      );
      const headsFile = join(folder, 'heads.ndjson');
      writeFileSync(headsFile, printed.stdout);
      for (const file of [logFile, headsFile]) {
        const verified = cli(['verify', '--heads', file]);
        assert.equal(verified.status, 0, verified.stderr);
        assert.equal(JSON.parse(verified.stdout).heads, file === logFile ? 1 : 2);
      }
      assert.equal(cli(['verify', '--heads', join(folder, 'none')]).status, 2);
    });

    it('ends quietly when the reader goes away (| head -1)', async () => {
      // Enough events that the listing outgrows the pipe's buffer.
      const trail = new AuditTrail(database.store.auditTrail());
      for (let i = 1; i <= 3000; i++) trail.answered(answered(i, 'filler'));
      await trail.close();
      const piped = spawnSync(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${CLI}" audit list --db "$DB" --json | head -1; exit \${PIPESTATUS[0]}`,
        ],
        { encoding: 'utf8', env: { ...process.env, DB: database.db } },
      );
      assert.equal(piped.stderr, '', 'no stack trace');
      assert.equal(piped.status, 0);
      assert.equal(piped.stdout.trim().split('\n').length, 1);
    });

    it('finds a chain cut at its end, or removed whole, only with the heads', async () => {
      const headsFile = join(folder, 'heads-before.ndjson');
      writeFileSync(headsFile, cli(['heads']).stdout);
      const sql = auditSqlOf(database);
      // The chain of the pipe test's trail: 3,000 events.
      const [chain] = await sql.all(
        'SELECT chain_id FROM audit_events GROUP BY chain_id ORDER BY COUNT(*) DESC LIMIT 1',
        [],
      );
      const [last] = await sql.all('SELECT MAX(seq) AS seq FROM audit_events WHERE chain_id = ?', [
        chain.chain_id,
      ]);
      // The last thousand events cut off: the chain still walks from its anchor.
      await sql.run('DELETE FROM audit_events WHERE chain_id = ? AND seq > ?', [
        chain.chain_id,
        Number(last.seq) - 1000,
      ]);
      assert.equal(cli(['verify']).status, 0, 'the chain alone cannot tell');
      const cut = cli(['verify', '--heads', headsFile]);
      assert.equal(cut.status, 1);
      assert.match(cut.stderr, /head not reached — the chain no longer has the event at the head/);
      await sql.run('DELETE FROM audit_events WHERE chain_id = ?', [chain.chain_id]);
      await sql.run('DELETE FROM audit_chains WHERE chain_id = ?', [chain.chain_id]);
      const removed = cli(['verify', '--heads', headsFile]);
      assert.equal(removed.status, 1);
      assert.match(removed.stderr, /removed whole/);
      // One closing parenthesis for each opened (issue 57: "(… (removed whole))" before).
      for (const { stderr } of [cut, removed]) {
        assert.doesNotMatch(stderr, /\)\)/, stderr);
        assert.equal(stderr.split('(').length, stderr.split(')').length, stderr);
      }
    });
  });
