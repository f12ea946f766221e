// The databases the attacks run on: the build's seeded database (SQLite, or a throwaway
// PostgreSQL cluster's), and a fresh copy of it for each attack.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchSeed, ensureSeeded, seededDatabase } from '../lib.mjs';

/**
 * The files of a SQLite database, the authorization server's own file (`-oauth`), the access
 * trail's (`-audit`, from the builds that keep one) and their sidecars.
 */
export const SQLITE_FILES = [
  '',
  '-wal',
  '-shm',
  '-journal',
  '-oauth',
  '-oauth-wal',
  '-oauth-shm',
  '-audit',
  '-audit-wal',
  '-audit-shm',
];

export async function pgQuery(url, sql, params = []) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The build's seeded database of `scale` (the seed every benchmark uses, lib.mjs' benchSeed), as
 * the attacks copy it: on SQLite a file in bench/data seeded once per build commit; with `pg` a
 * database of a throwaway cluster (`cluster.destroy()` when done).
 */
export async function seededSource(build, scale, pg) {
  if (!pg) {
    const db = resolve(
      `bench/data/open-internet-${scale}-${(build.commit ?? 'unknown').slice(0, 7)}.db`,
    );
    ensureSeeded(db, benchSeed(scale), build.cli);
    return { source: { kind: 'sqlite', db }, cluster: null };
  }
  const name = 'open_internet_seed';
  const { cluster } = await seededDatabase({ scale, pg }, name, build.cli);
  return { source: { kind: 'postgresql', admin: cluster.url, name }, cluster };
}

// ---------------------------------------------------------------------------------------------
// Fresh databases, one per attack

/**
 * A copy of the seeded SQLite database (and whatever lies beside it, and its columnar base
 * copies), or on PostgreSQL a database made from it as a template; `remove()` when done.
 */
export function freshDatabase(source, name) {
  if (source.kind === 'sqlite') {
    const db = resolve(`bench/data/${name}.db`);
    const remove = () => {
      for (const suffix of SQLITE_FILES) rmSync(`${db}${suffix}`, { force: true });
      rmSync(`${db}.facts`, { recursive: true, force: true });
    };
    remove();
    for (const suffix of SQLITE_FILES)
      if (existsSync(`${source.db}${suffix}`) && statSync(`${source.db}${suffix}`).size > 0)
        copyFileSync(`${source.db}${suffix}`, `${db}${suffix}`);
    if (existsSync(`${source.db}.facts`)) {
      const bases = readdirSync(`${source.db}.facts`).filter((f) => /^base-.*\.duckdb$/.test(f));
      if (bases.length) mkdirSync(`${db}.facts`);
      for (const f of bases) copyFileSync(join(`${source.db}.facts`, f), join(`${db}.facts`, f));
    }
    return {
      kind: 'sqlite',
      db,
      remove: async () => (process.env.BENCH_KEEP ? null : remove()),
    };
  }
  const dbName = name.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
  const admin = source.admin;
  return (async () => {
    await pgQuery(admin, `DROP DATABASE IF EXISTS ${dbName}`);
    await pgQuery(admin, `CREATE DATABASE ${dbName} TEMPLATE ${source.name}`);
    return {
      kind: 'postgresql',
      db: Object.assign(new URL(admin), { pathname: `/${dbName}` }).href,
      remove: () => pgQuery(admin, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`),
    };
  })();
}
