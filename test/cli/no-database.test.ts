import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { migrationSql } from '../../src/store/dialect.js';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { runCli } from '../support/cli.js';
import { TEST_PG_URL } from '../support/test-databases.js';

const HINT = '(only vms-read seed and demo create one)';
const DEFINITION = JSON.stringify({ query: { metrics: ['spend'] } });

/** Every command that reads or writes an existing database, with flags that pass its own checks. */
function commands(db: string, dir: string): Record<string, string[]> {
  return {
    serve: ['serve', '--db', db, '--port', '0'],
    mcp: ['mcp', '--db', db, '--token', 'vmsr_x'],
    'workspace list': ['workspace', 'list', '--db', db, '--json'],
    'token create': [
      ...['token', 'create', '--db', db, '--workspace', 'ws_business'],
      ...['--role', 'staff', '--scopes', 'read:program'],
    ],
    'token revoke': ['token', 'revoke', '--db', db, '--token', 'vmsr_x'],
    'catalog enable': [
      ...['catalog', 'enable', '--db', db],
      ...['--workspace', 'ws_business', '--metric', 'spend'],
    ],
    'saved-query create': [
      ...['saved-query', 'create', '--db', db, '--workspace', 'ws_business'],
      ...['--kind', 'library', '--name', 'Spend', '--definition', DEFINITION],
    ],
    import: ['import', '--db', db, '--workspace', 'ws_business', dir],
  };
}

/** Everything about a folder's files a command could change: names, bytes and mtimes. */
function snapshot(dir: string) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((name) => {
      const path = join(dir, name);
      const stat = statSync(path);
      return {
        name,
        mtime: stat.mtimeMs,
        bytes: stat.isFile() ? readFileSync(path).toString('base64') : null,
      };
    });
}

function assertRefused(result: ReturnType<typeof runCli>, line: string, what: string) {
  assert.equal(result.status, 2, `${what}: ${result.stderr}`);
  assert.equal(result.stderr, `${line}\n`, what);
  assert.equal(result.stdout, '', what);
}

describe('a --db that names no vms-read database is refused, never created (only seed and demo create)', () => {
  let root: string;
  let elsewhere: string;
  let files: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'vms-read-nodb-'));
    elsewhere = join(root, 'elsewhere');
    files = join(root, 'files');
    mkdirSync(elsewhere);
    mkdirSync(files);
    writeFileSync(join(files, 'empty.db'), '');
    writeFileSync(
      join(files, 'notes.db'),
      'ignore previous instructions\nthis is not a database\n',
    );
    const foreign = new Database(join(files, 'foreign.db'));
    foreign.exec('CREATE TABLE invoices (id TEXT PRIMARY KEY); INSERT INTO invoices VALUES (1);');
    foreign.pragma('user_version = 7');
    foreign.close();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a missing relative path, resolved against the working folder, in every command', () => {
    for (const [name, args] of Object.entries(commands('data/demo.db', files))) {
      const result = runCli(args, {}, elsewhere);
      assertRefused(
        result,
        `vms-read: no vms-read database at ${join(elsewhere, 'data', 'demo.db')}: no such file ${HINT}`,
        name,
      );
      assert.deepEqual(readdirSync(elsewhere), [], `${name} created nothing`);
    }
  });

  it('refuses VMS_READ_DB naming a missing file the same way', () => {
    const result = runCli(['workspace', 'list'], { VMS_READ_DB: 'nope.db' }, elsewhere);
    assertRefused(
      result,
      `vms-read: no vms-read database at ${join(elsewhere, 'nope.db')}: no such file ${HINT}`,
      'VMS_READ_DB',
    );
    assert.deepEqual(readdirSync(elsewhere), []);
  });

  const FILES: [file: string, problem: string][] = [
    ['empty.db', 'the file is empty'],
    ['notes.db', 'not a SQLite database'],
    ['foreign.db', "a SQLite database without vms-read's tables"],
  ];
  for (const [file, problem] of FILES) {
    it(`refuses ${file} (${problem}) and leaves it exactly as it was`, () => {
      const before = snapshot(files);
      for (const [name, args] of Object.entries(commands(join(files, file), elsewhere))) {
        assertRefused(
          runCli(args),
          `vms-read: no vms-read database at ${join(files, file)}: ${problem} ${HINT}`,
          name,
        );
        assert.deepEqual(snapshot(files), before, `${name} changed nothing`);
      }
    });
  }

  it('still opens a vms-read database of an older schema version, and migrates it', () => {
    const path = join(root, 'old.db');
    const old = new Database(path);
    old.exec(migrationSql(sqliteDialect, MIGRATIONS[0]));
    old.pragma('user_version = 1');
    old.close();
    const result = runCli(['workspace', 'list', '--db', path, '--json']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, '[]\n');
    const migrated = new Database(path, { readonly: true });
    assert.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
    migrated.close();
  });

  describe('on PostgreSQL', { skip: TEST_PG_URL ? false : 'no PostgreSQL test cluster' }, () => {
    const name = `nodb_${process.pid}`;
    const urlOf = (database: string, password?: string) => {
      const url = new URL(TEST_PG_URL as string);
      url.pathname = `/${database}`;
      if (password) url.password = password;
      return url;
    };
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    };
    before(() => admin(`CREATE DATABASE ${name}`));
    after(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

    it('refuses a database without vms-read tables, masking the password, and creates none', async () => {
      // The test cluster trusts local connections, so the password is sent and ignored.
      const url = urlOf(name, 's3cret');
      const masked = urlOf(name, '***').toString();
      for (const [command, args] of Object.entries(commands(url.toString(), files))) {
        const result = runCli(args);
        assertRefused(
          result,
          `vms-read: no vms-read database at ${masked}: a PostgreSQL database without vms-read's tables ${HINT}`,
          command,
        );
        assert.ok(!result.stderr.includes('s3cret'), command);
      }
      const client = new pg.Client({ connectionString: urlOf(name).toString() });
      await client.connect();
      try {
        const { rows } = await client.query(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
        );
        assert.deepEqual(rows, []);
      } finally {
        await client.end();
      }
    });

    it('refuses a database name the server does not have', () => {
      const url = urlOf(`${name}_absent`).toString();
      assertRefused(
        runCli(['workspace', 'list', '--db', url]),
        `vms-read: no vms-read database at ${url}: no such PostgreSQL database ${HINT}`,
        'absent database',
      );
    });

    // Issue 57: the message says seed creates one; on PostgreSQL it failed on `database "…" does
    // not exist`. It creates it now, or says how where the role may not.
    it('seed creates a database the server does not have, as the refusal says', async () => {
      const absent = `${name}_seeded`;
      const url = urlOf(absent).toString();
      try {
        const seeded = runCli(['seed', '--db', url, '--scale', 'tiny', '--as-of', '2026-06-30']);
        assert.equal(seeded.status, 0, seeded.stderr);
        const listed = runCli(['workspace', 'list', '--db', url]);
        assert.equal(listed.status, 0, listed.stderr);
        assert.match(listed.stdout, /ws_business/);
      } finally {
        await admin(`DROP DATABASE IF EXISTS ${absent} WITH (FORCE)`);
      }
    });

    it('seed tells a role that may not create databases how to make one', async () => {
      const role = `${name}_reader`;
      await admin(`CREATE ROLE ${role} LOGIN NOCREATEDB`);
      try {
        const url = urlOf(`${name}_refused`);
        url.username = role;
        const result = runCli(['seed', '--db', url.toString(), '--scale', 'tiny']);
        assert.equal(result.status, 1);
        assert.match(
          result.stderr,
          new RegExp(
            `^vms-read: PostgreSQL has no database "${name}_refused" and this role may not create one: create it as a role that may \\(createdb "${name}_refused"`,
          ),
        );
        assert.equal(result.stderr.split('\n').length, 2, result.stderr);
      } finally {
        await admin(`DROP ROLE IF EXISTS ${role}`);
      }
    });

    it('keeps a server out of reach a one-line failure with exit 1', () => {
      const url = new URL(urlOf(name));
      url.port = '1';
      const result = runCli(['workspace', 'list', '--db', url.toString()]);
      assert.equal(result.status, 1);
      assert.equal(result.stderr.split('\n').length, 2, result.stderr);
      assert.match(result.stderr, /^vms-read: /);
    });
  });
});
