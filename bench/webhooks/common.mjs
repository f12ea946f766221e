// What the webhook scenarios share: the change they time (a supplier of the loads' workspace
// renamed by `vms-read import`), a subscription made with the CLI, and the figures of a series.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli, round } from '../lib.mjs';
import { runImport, WORKSPACE, writeCsv } from '../load-files.mjs';

export { WORKSPACE };

export const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
export const summary = (ms) => ({
  p50Ms: round(percentile(ms, 50)),
  p90Ms: round(percentile(ms, 90)),
  maxMs: round(Math.max(...ms)),
});

/** The supplier every scenario renames: the workspace's first. */
export function supplierOf(db) {
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite
      .prepare('SELECT id, code FROM suppliers WHERE workspace_id = ? ORDER BY id LIMIT 1')
      .get(WORKSPACE);
  } finally {
    sqlite.close();
  }
}

/**
 * Imports `supplier` under the name `Supplier <marker>` (a folder of its own under `dir`), with
 * the CLI at `cliPath` (this build's by default); resolves with when the import exited.
 */
export async function importRename(db, dir, supplier, marker, cliPath) {
  const at = join(dir, marker);
  mkdirSync(at);
  await writeCsv(
    join(at, 'suppliers.csv'),
    ['id', 'code', 'name', 'updated_at'],
    [[supplier.id, supplier.code, `Supplier ${marker}`, new Date().toISOString()]],
  );
  const { exitedAt } = await runImport(db, at, cliPath);
  return exitedAt;
}

/**
 * `vms-read webhook create` of `url` for suppliers, bound to access key `key` (with the CLI at
 * `cliPath`): `{ id, secret }`. Loopback receivers need VMS_READ_WEBHOOK_ALLOW_INSECURE=1.
 */
export function subscribe({ db, key, url, cliPath }) {
  const args = [
    'webhook',
    'create',
    '--db',
    db,
    '--token',
    key,
    '--url',
    url,
    '--type',
    'supplier',
  ];
  return JSON.parse(cli(args, cliPath));
}
