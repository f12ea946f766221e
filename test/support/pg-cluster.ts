import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temp dir, pg_ctl on a
 * free loopback port, stopped and removed afterwards. PostgreSQL refuses to run as root, so as
 * root the binaries run as the `postgres` user (or `nobody`).
 */
export interface PgCluster {
  /** Superuser URL of the `postgres` database. */
  url: string;
  port: number;
  dir: string;
  start(): void;
  stop(): void;
  /**
   * Stops the database without closing a socket: SIGSTOP to the postmaster and every process it
   * started (each backend is its own process group, so one group signal would not reach them).
   * Connections stay open and silent, as with a hung host.
   */
  freeze(): void;
  /** SIGCONT to the processes `freeze` stopped. */
  thaw(): void;
  destroy(): void;
}

/** The postmaster's pid and its children's, from postmaster.pid and ps. */
function databaseProcesses(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], {
    encoding: 'utf8',
  })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
  return [postmaster, ...children];
}

function findBinary(name: string): string | null {
  const dirs = (process.env.PATH ?? '').split(delimiter);
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort().reverse()
    : [];
  for (const dir of [...dirs, ...versions.map((v) => `/usr/lib/postgresql/${v}/bin`)]) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

export function postgresBinaries(): { initdb: string; pgCtl: string } | null {
  const initdb = findBinary('initdb');
  const pgCtl = findBinary('pg_ctl');
  return initdb && pgCtl ? { initdb, pgCtl } : null;
}

function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {
      // try the next user
    }
  }
  throw new Error(
    'running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as',
  );
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `parent`: the folder its data goes in (the system's temporary folder by default). */
export async function startCluster(parent = tmpdir()): Promise<PgCluster> {
  const binaries = postgresBinaries();
  if (!binaries) throw new Error('PostgreSQL binaries (initdb, pg_ctl) not found');
  const user = runAs();
  const dir = mkdtempSync(join(parent, 'vms-read-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const exec = (file: string, args: string[]) => {
    const result = spawnSync(file, args, { ...user, encoding: 'utf8', cwd: dir, timeout: 120_000 });
    if (result.status !== 0)
      throw new Error(`${file} ${args[0]} failed: ${result.stderr || result.stdout}`);
  };
  exec(binaries.initdb, [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--locale=C',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const cluster: PgCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start: () =>
      exec(binaries.pgCtl, [
        '-D',
        data,
        '-l',
        join(dir, 'log'),
        '-o',
        options,
        '-w',
        '-t',
        '60',
        'start',
      ]),
    stop: () => exec(binaries.pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']),
    // The postmaster first, so that it starts no new backend while the others are stopped.
    freeze: () => {
      for (const pid of databaseProcesses(data)) process.kill(pid, 'SIGSTOP');
    },
    thaw: () => {
      for (const pid of databaseProcesses(data).reverse()) process.kill(pid, 'SIGCONT');
    },
    destroy: () => {
      try {
        cluster.thaw();
      } catch {
        // not running
      }
      try {
        cluster.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
