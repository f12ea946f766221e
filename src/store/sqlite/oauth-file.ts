import Database from 'better-sqlite3';
import { createIndexSql, createTableSql } from '../dialect.js';
import { OAUTH_RECORDS_TABLE, type OAuthSql } from '../sql/oauth-records.js';
import type { Row } from '../store.js';
import { sqliteDialect } from './sqlite-dialect.js';

/** How long a write to the records' own file may wait for another server's write (ms). */
const BUSY_MS = 1000;

/**
 * The built-in authorization server's records on SQLite live in a file of their own beside the
 * database (`<db>-oauth`, with its own WAL), DESIGN §4.16 "No waiting on loads": an import holds
 * the database's write lock for as long as it loads, and better-sqlite3 waits for a lock
 * synchronously, so a sign-in, a registration or a token refresh written to the database itself
 * held the whole server still for up to 5 s. This file is written only by servers, in short
 * statements. An in-memory database keeps them in memory too.
 */
export function oauthFilePath(databasePath: string): string {
  return databasePath === ':memory:' ? ':memory:' : `${databasePath}-oauth`;
}

export interface OAuthFile extends OAuthSql {
  /** Writes the WAL into the file and truncates it (after an erasure: no old page left in it). */
  checkpoint(): void;
  close(): void;
}

/**
 * Opens (creating it when missing) the records' file. Records a database kept in its own
 * `oauth_records` table (before they moved aside) are copied in once, when the file is made;
 * `main` is the database's connection.
 */
export function openOAuthFile(databasePath: string, main: Database.Database): OAuthFile {
  const db = new Database(oauthFilePath(databasePath));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_MS}`);
  // A revoked grant's or an erased session's bytes are overwritten, as in the database.
  db.pragma('secure_delete = ON');
  if (db.pragma('user_version', { simple: true }) === 0) {
    db.transaction(() => {
      db.exec(
        [createTableSql(sqliteDialect, OAUTH_RECORDS_TABLE), ...createIndexSql(OAUTH_RECORDS_TABLE)]
          .map((statement) =>
            statement.replace(/^CREATE (TABLE|INDEX) /, 'CREATE $1 IF NOT EXISTS '),
          )
          .join(';\n'),
      );
      copyOlderRecords(db, main);
      db.pragma('user_version = 1');
    })();
    try {
      // Copied: the database's own copies are read by nothing now.
      main.exec('DELETE FROM oauth_records');
    } catch {
      // Another process holds the database's write lock, or the table is gone: stale rows only.
    }
  }
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  return {
    get: async (sql, params) => (prepare(sql).get(...params) as Row | undefined) ?? null,
    run: async (sql, params) => prepare(sql).run(...params).changes,
    checkpoint: () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    close: () => {
      if (db.open) db.close();
    },
  };
}

/** The rows of the database's own `oauth_records` (schema versions 4 to 9), when it has any. */
function copyOlderRecords(db: Database.Database, main: Database.Database): void {
  const hasTable = main
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'oauth_records'")
    .get();
  if (!hasTable) return;
  const insert = db.prepare(
    'INSERT OR IGNORE INTO oauth_records (model, id, payload, grant_id, uid, expires_at, consumed_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const row of main.prepare('SELECT * FROM oauth_records').iterate() as Iterable<Row>)
    insert.run(
      row.model,
      row.id,
      row.payload,
      row.grant_id,
      row.uid,
      row.expires_at,
      row.consumed_at,
    );
}
