import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PLAIN_ID_SHAPE } from '../../src/records/plain-values.js';
import { exitOf, freePort, runCli, startServer } from '../support/cli.js';

describe('vms-read CLI (DESIGN §5)', () => {
  let dir: string;
  let db: string;
  let summary: { workspaces: { id: string; counts: Record<string, number> }[] };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-cli-'));
    // A folder that does not exist yet: seed creates it and the database (only seed and demo may).
    db = join(dir, 'data', 'test.db');
    assert.equal(existsSync(db), false);
    const seeded = runCli([
      'seed',
      '--db',
      db,
      '--scale',
      'tiny',
      '--seed',
      '3',
      '--as-of',
      '2026-06-30',
    ]);
    assert.equal(seeded.status, 0, seeded.stderr);
    summary = JSON.parse(seeded.stdout);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('seed creates the database and prints a JSON summary with workspace ids and counts', () => {
    assert.ok(existsSync(db));
    assert.deepEqual(summary.workspaces.map((w) => w.id).sort(), [
      'ws_business',
      'ws_enterprise',
      'ws_team',
    ]);
    for (const w of summary.workspaces) assert.ok(w.counts.time_entries > 1000);
  });

  it('seed refuses to overwrite data without --force, and replaces it with --force', () => {
    const refused = runCli([
      'seed',
      '--db',
      db,
      '--scale',
      'tiny',
      '--seed',
      '3',
      '--as-of',
      '2026-06-30',
    ]);
    assert.equal(refused.status, 2);
    // Refused by what it met, not a usage mistake: one line, no usage.
    assert.equal(
      refused.stderr,
      'vms-read: the database already holds data; pass --force to replace it\n',
    );
    const forced = runCli([
      'seed',
      '--db',
      db,
      '--scale',
      'tiny',
      '--seed',
      '3',
      '--as-of',
      '2026-06-30',
      '--force',
    ]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.deepEqual(JSON.parse(forced.stdout), summary);
  });

  it('seed writes a new file and puts it in place, and never overwrites a file that is not a vms-read database', () => {
    const other = join(dir, 'notes.txt');
    writeFileSync(other, 'my notes\n');
    const refused = runCli(['seed', '--db', other, '--scale', 'tiny', '--force']);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /is not a vms-read database; seed does not overwrite it/);
    assert.equal(readFileSync(other, 'utf8'), 'my notes\n');
    // No temporary file is left beside the database the earlier seeds wrote.
    assert.deepEqual(
      readdirSync(join(dir, 'data')).filter((name) => name.includes('.seeding-')),
      [],
    );
    // The seeded file was put in place ready to serve: in WAL mode.
    const seeded = new Database(db, { readonly: true });
    assert.equal(seeded.pragma('journal_mode', { simple: true }), 'wal');
    seeded.close();
  });

  it('seed and facts refresh write a base columnar copy of the report facts for the new epoch and version', () => {
    const facts = `${db}.facts`;
    const copies = () => readdirSync(facts).filter((name) => name.endsWith('.duckdb'));
    const [seeded] = copies();
    assert.match(seeded ?? '', /^base-[0-9a-f]+-1\.duckdb$/);
    const refreshed = runCli(['facts', 'refresh', '--db', db]);
    assert.equal(refreshed.status, 0, refreshed.stderr);
    assert.match(refreshed.stderr, /columnar report facts written to .*\.duckdb/);
    const [current] = copies();
    assert.notEqual(current, seeded, 'a new epoch, a new file');
    assert.equal(copies().length, 1, 'the older copy is removed');
    const row = runCli(['facts', 'refresh', '--db', db], { VMS_READ_REPORT_ENGINE: 'row' });
    assert.equal(row.status, 0, row.stderr);
    assert.deepEqual(copies(), [current], 'with the row engine no copy is written');
  });

  it('workspace list --json prints {id, name, plan, catalogSource} per workspace', () => {
    const listed = runCli(['workspace', 'list', '--db', db, '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    const workspaces = JSON.parse(listed.stdout);
    assert.deepEqual(
      workspaces.map((w: Record<string, unknown>) => Object.keys(w).sort()),
      workspaces.map(() => ['catalogSource', 'id', 'name', 'plan']),
    );
    assert.deepEqual(workspaces.map((w: { plan: string }) => w.plan).sort(), [
      'business',
      'enterprise',
      'team',
    ]);
  });

  it('rejects unknown flags and bad values with exit code 2', () => {
    assert.equal(runCli(['seed', '--db', db, '--bogus']).status, 2);
    assert.equal(runCli(['seed', '--db', db, '--scale', 'huge']).status, 2);
    assert.equal(
      runCli([
        'token',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--role',
        'admin',
        '--scopes',
        'read:program',
      ]).status,
      2,
    );
    assert.equal(
      runCli([
        'token',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--role',
        'staff',
        '--scopes',
        'read:everything',
      ]).status,
      2,
    );
    assert.equal(
      runCli([
        'token',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--role',
        'worker',
        '--scopes',
        'read:workforce',
      ]).status,
      2,
    );
    assert.equal(runCli(['nonsense']).status, 2);
  });

  it('catalog disable and enable write a new configuration version each time', () => {
    const args = ['--db', db, '--workspace', 'ws_business', '--metric', 'spend'];
    const disabled = runCli(['catalog', 'disable', ...args]);
    assert.equal(disabled.status, 0, disabled.stderr);
    const first = JSON.parse(disabled.stdout);
    assert.deepEqual(first, {
      workspace: 'ws_business',
      configVersion: 2,
      metric: 'spend',
      enabled: false,
    });
    const enabled = runCli(['catalog', 'enable', ...args]);
    assert.equal(JSON.parse(enabled.stdout).configVersion, 3);
    assert.equal(
      runCli([
        'catalog',
        'disable',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--metric',
        'no_such_metric',
      ]).status,
      2,
    );
    assert.equal(runCli(['catalog', 'toggle', ...args]).status, 2);
  });

  it('saved-query create checks the definition and prints the new id alone', () => {
    const created = runCli([
      'saved-query',
      'create',
      '--db',
      db,
      '--workspace',
      'ws_business',
      '--kind',
      'dashboard_tile',
      '--name',
      'Spend by supplier',
      '--dashboard',
      'dash-1',
      '--definition',
      JSON.stringify({
        query: { metrics: ['spend'], dimensions: ['supplier'] },
        period: { kind: 'relative', unit: 'month', offset: -1 },
      }),
    ]);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /^sq_[0-9a-f-]+\n$/);
    const bad = (definition: string) =>
      runCli([
        'saved-query',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--kind',
        'library',
        '--name',
        'x',
        '--definition',
        definition,
      ]).status;
    assert.equal(bad('not json'), 2);
    assert.equal(bad(JSON.stringify({ query: { metrics: [] } })), 2);
    assert.equal(
      bad(
        JSON.stringify({
          query: { metrics: ['spend'], timeRange: { from: '2025-02-01', to: '2025-01-01' } },
        }),
      ),
      2,
    );
  });

  it('refuses flags bound for plain fields unless id-shaped, with exit 2, writing nothing', () => {
    const count = (table: string) => {
      const raw = new Database(db, { readonly: true });
      try {
        return raw.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
      } finally {
        raw.close();
      }
    };
    const before = { tokens: count('tokens'), saved: count('saved_queries') };
    const token = (...flags: string[]) => [
      ...['token', 'create', '--db', db, '--scopes', 'read:program', ...flags],
    ];
    const saved = (flags: string[], definition: unknown = { query: { metrics: ['spend'] } }) => [
      ...['saved-query', 'create', '--db', db, '--name', 'Spend', '--kind', 'dashboard_tile'],
      ...['--definition', JSON.stringify(definition), ...flags],
    ];
    const cases: [args: string[], flag: string][] = [
      [
        token('--workspace', 'ws_business; ignore previous instructions', '--role', 'staff'),
        '--workspace',
      ],
      [token('--workspace', 'ws_business', '--role', 'worker', '--worker', 'wkr 1'), '--worker'],
      [
        token('--workspace', 'ws_business', '--role', 'billing_entity', '--supplier', 'sup_🚀'),
        '--supplier',
      ],
      [saved(['--workspace', 'ws\u200bbusiness']), '--workspace'],
      [
        saved(['--workspace', 'ws_business', '--dashboard', 'Ignore previous instructions']),
        '--dashboard',
      ],
      [saved(['--workspace', 'ws_business', '--dashboard', 'לוח_ראשי']), '--dashboard'],
      [
        ['catalog', 'enable', '--db', db, '--workspace', 'ws_business', '--metric', 'spend\n'],
        '--metric',
      ],
      [
        ['catalog', 'disable', '--db', db, '--workspace', 'w'.repeat(65), '--metric', 'spend'],
        '--workspace',
      ],
      [['import', '--db', db, '--workspace', '\u202ews_business', dir], '--workspace'],
    ];
    for (const [args, flag] of cases) {
      const result = runCli(args);
      assert.equal(result.status, 2, args.join(' '));
      const [first, second] = result.stderr.split('\n');
      assert.equal(first, `vms-read: ${flag} must be ${PLAIN_ID_SHAPE}`);
      assert.match(second, /^usage: vms-read/);
      assert.equal(result.stdout, '');
    }
    const prose = runCli(
      saved(['--workspace', 'ws_business'], {
        query: {
          metrics: ['invoice_count'],
          filters: [{ dimension: 'invoice_status', operator: 'eq', values: ['Ignore all rules'] }],
        },
      }),
    );
    assert.equal(prose.status, 2);
    assert.equal(
      prose.stderr.split('\n')[0],
      'vms-read: --definition holds query.filters[0].values[0], which must be one of draft, issued, pushed, void (dimension invoice_status)',
    );
    assert.deepEqual({ tokens: count('tokens'), saved: count('saved_queries') }, before);
  });

  describe('serve', () => {
    let port: number;
    let server: Awaited<ReturnType<typeof startServer>>;
    let token: string;
    before(async () => {
      port = await freePort();
      server = await startServer(['serve', '--db', db, '--port', String(port)], port);
      const created = runCli([
        'token',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--role',
        'staff',
        '--scopes',
        'read:workforce,read:pii',
      ]);
      assert.equal(created.status, 0, created.stderr);
      token = created.stdout.trim();
      assert.equal(created.stdout, `${token}\n`, 'the token alone on stdout');
    });
    after(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });

    const workers = (t: string) =>
      fetch(`http://127.0.0.1:${port}/api/v1/workers?limit=1`, {
        headers: { authorization: `Bearer ${t}` },
      });

    it('answers /healthz with {"status":"ok"}', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.deepEqual(await response.json(), { status: 'ok' });
    });

    it('accepts a token created while it runs, and refuses it once revoked, without a restart', async () => {
      assert.equal((await workers(token)).status, 200);
      const revoked = runCli(['token', 'revoke', '--db', db, '--token', token]);
      assert.equal(revoked.status, 0, revoked.stderr);
      const answer = await workers(token);
      assert.equal(answer.status, 401);
      assert.match(
        String(answer.headers.get('www-authenticate')),
        /^Bearer realm="vms-read", error="invalid_token", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource", scope="read:workforce"$/,
      );
    });

    it('treats a token with an expiry in the past as already expired', async () => {
      const created = runCli([
        'token',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--role',
        'staff',
        '--scopes',
        'read:workforce',
        '--expires',
        '2020-01-01T00:00:00Z',
      ]);
      assert.equal(created.status, 0, created.stderr);
      assert.equal((await workers(created.stdout.trim())).status, 401);
    });

    it('mints with --in-url a key the OData feed takes as api_key, and no other', async () => {
      const mint = (...flags: string[]) => {
        const created = runCli([
          ...['token', 'create', '--db', db, '--workspace', 'ws_business', '--role', 'staff'],
          ...['--scopes', 'read:workforce', ...flags],
        ]);
        assert.equal(created.status, 0, created.stderr);
        return created.stdout.trim();
      };
      const feed = (key: string) =>
        fetch(`http://127.0.0.1:${port}/odata/v4/Workers?$top=1&api_key=${key}`);
      assert.equal((await feed(mint('--in-url', '--expires', '2099-01-01'))).status, 200);
      assert.equal((await feed(mint())).status, 401);
    });

    it('drains and exits 0 on SIGTERM', async () => {
      server.child.kill('SIGTERM');
      assert.equal(await exitOf(server.child), 0);
    });
  });
});
