import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:tls';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './pg-cluster.js';

/**
 * A real TLS-terminating proxy for tests (DESIGN §4.16): Debian's nginx, started on a free loopback
 * port with `deploy/nginx.conf` (the configuration docs/deploy.md gives operators), its public
 * name, port, certificate and upstream replaced; and a certificate authority made for the run with
 * openssl, whose certificate clients trust (NODE_EXTRA_CA_CERTS, or `ca`).
 */
export interface TlsProxy {
  /** The public origin, `https://localhost:<port>`. */
  origin: string;
  port: number;
  /** The test CA's certificate (PEM), and its file. */
  ca: string;
  caFile: string;
  stop(): Promise<void>;
}

function find(binary: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin'])
    if (dir && existsSync(join(dir, binary))) return join(dir, binary);
  return null;
}

const NGINX = find('nginx');
const OPENSSL = find('openssl');
const ci = process.env.CI === 'true' || process.env.CI === '1';

/** The `skip` of a suite needing the proxy: one line without nginx or openssl, never in CI. */
export const skipWithoutNginx = (): string | false =>
  (!NGINX || !OPENSSL) &&
  !ci &&
  'nginx or openssl not installed (Debian packages nginx, openssl): the tests behind a TLS proxy skipped';

/** The configuration operators are given, as this repository holds it. */
export const NGINX_CONF = fileURLToPath(new URL('../../../deploy/nginx.conf', import.meta.url));

function openssl(args: string[], cwd: string): void {
  const result = spawnSync(OPENSSL as string, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl ${args[0]}: ${result.stderr}`);
}

/** A CA, and a certificate it signed for localhost and 127.0.0.1 (EC P-256, two days). */
function makeCertificates(dir: string) {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=vms-read test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'key.pem', '-out', 'req.csr', '-subj', '/CN=localhost'], dir);
  writeFileSync(
    join(dir, 'ext.cnf'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'req.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'cert.pem',
      '-days',
      '2',
      '-extfile',
      'ext.cnf',
    ],
    dir,
  );
}

/** deploy/nginx.conf for this run: each replaced text must be there, so the two never drift. */
function siteConfig(dir: string, port: number, upstreamPort: number): string {
  let conf = readFileSync(NGINX_CONF, 'utf8');
  for (const [from, to] of [
    ['listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`],
    ['server_name vms.example.com;', 'server_name localhost;'],
    ['/etc/ssl/vms.example.com/fullchain.pem', join(dir, 'cert.pem')],
    ['/etc/ssl/vms.example.com/privkey.pem', join(dir, 'key.pem')],
    ['server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`],
  ]) {
    if (!conf.includes(from)) throw new Error(`deploy/nginx.conf no longer holds "${from}"`);
    conf = conf.replaceAll(from, to);
  }
  return conf;
}

/** Starts nginx in front of `upstreamPort`; resolves once it answers TLS on its port. */
export async function startTlsProxy(upstreamPort: number): Promise<TlsProxy> {
  if (!NGINX || !OPENSSL) throw new Error('nginx or openssl not found');
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-nginx-'));
  makeCertificates(dir);
  const port = await freePort();
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
  // One process (no workers to switch to another user), in the foreground, everything in `dir`.
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
${siteConfig(dir, port, upstreamPort)}
}
`,
  );
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const caFile = join(dir, 'ca.pem');
  const ca = readFileSync(caFile, 'utf8');
  const origin = `https://localhost:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', servername: 'localhost', ca }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not answer on ${port}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    origin,
    port,
    ca,
    caFile,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
