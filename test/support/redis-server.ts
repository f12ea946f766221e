import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './pg-cluster.js';

/**
 * A throwaway redis-server for tests: a free loopback port, a temp dir, nothing written to disk
 * (`--save ''`, `--appendonly no`), stopped and removed afterwards. It can be killed (SIGKILL, as
 * a crash), frozen (SIGSTOP, as a hung host) and started again on the same port.
 */
export interface RedisServer {
  url: string;
  port: number;
  /** Starts it (again) on its port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGKILL: the process dies at once, its connections reset. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open and silent. */
  freeze(): void;
  thaw(): void;
  destroy(): Promise<void>;
}

function findRedisServer(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin']) {
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return null;
}

export const REDIS_SERVER = findRedisServer();

const ci = process.env.CI === 'true' || process.env.CI === '1';

/**
 * The `skip` option of a suite needing Redis: one line where redis-server is not installed,
 * never in CI (there, the suite runs and fails loudly if it is missing; `.ci/run` installs it).
 */
export const skipWithoutRedis = (): string | false =>
  !REDIS_SERVER &&
  !ci &&
  'redis-server not installed (Debian package redis-server): shared-quota tests skipped';

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

export async function startRedis(): Promise<RedisServer> {
  if (!REDIS_SERVER) throw new Error('redis-server not found');
  const binary = REDIS_SERVER;
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn(
        binary,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--loglevel',
          'notice',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = started;
      let output = '';
      const timer = setTimeout(() => {
        started.kill('SIGKILL');
        reject(new Error(`redis-server did not start: ${output}`));
      }, 30_000);
      started.stdout?.on('data', (chunk: Buffer) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.stderr?.on('data', (chunk: Buffer) => (output += chunk));
      started.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited: ${output}`));
      });
    });

  const signal = async (name: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    running.kill(name);
    await exited(running);
  };

  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    kill: () => signal('SIGKILL'),
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    destroy: async () => {
      server.thaw();
      await signal('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await start();
  return server;
}
