import type Database from 'better-sqlite3';
import { OAUTH_RECORDS_TABLE } from '../sql/oauth-records.js';
import type { Row } from '../store.js';
import { openSideFile, type SideFile } from './side-file.js';

/**
 * The built-in authorization server's records on SQLite: a side file (`<db>-oauth`, side-file.ts).
 * Records a database kept in its own `oauth_records` table (schema versions 4 to 9, before they
 * moved aside) are copied in once, when the file is made, then removed from the database.
 */
export function openOAuthFile(databasePath: string, main: Database.Database): SideFile {
  let copied = false;
  const file = openSideFile(databasePath, '-oauth', [OAUTH_RECORDS_TABLE], {
    made: (db) => {
      copied = copyOlderRecords(db, main);
    },
  });
  if (copied) {
    try {
      main.exec('DELETE FROM oauth_records');
    } catch {
      // Another process holds the database's write lock: stale rows, read by nothing.
    }
  }
  return file;
}

/** The rows of the database's own `oauth_records`, when it has any; whether it had the table. */
function copyOlderRecords(db: Database.Database, main: Database.Database): boolean {
  const hasTable = main
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'oauth_records'")
    .get();
  if (!hasTable) return false;
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
  return true;
}
