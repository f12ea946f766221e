import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { OriginConfig } from '../config.js';

export type { OriginConfig };

/** Who this server is, from configuration and the address it listens on, never from `Host`. */
export interface ServerOrigin {
  /** The origin that links to this server use (resource metadata, challenges). */
  own(): string;
  /**
   * The resource identifier (DESIGN §4.12): VMS_READ_PUBLIC_URL without a trailing slash, else
   * the origin it listens on. OAuth tokens must name it (or it with `/mcp`) in `aud`.
   */
  resource(): string;
  /**
   * The resource identifier a request names (DESIGN §4.16): without VMS_READ_PUBLIC_URL, on a
   * loopback address, the origin of its Host when that is one of the loopback names with this
   * server's port (an MCP host given `http://localhost:8080/mcp` must find that very resource in
   * the metadata); else `resource()`.
   */
  resourceFor(host: string | undefined): string;
  /** The origin of `resourceFor(host)`: where the metadata a challenge points at is. */
  ownFor(host: string | undefined): string;
  /**
   * Every identifier a token may name in `aud`: `resource()` and, without VMS_READ_PUBLIC_URL
   * on a loopback address, each loopback name of this server; each also with `/mcp`.
   */
  resources(): string[];
  /** True for the server's own origins and the configured ones. */
  allowsOrigin(origin: string): boolean;
  /** On a loopback address only loopback host names (and the public URL's) may be asked for. */
  allowsHost(host: string | undefined): boolean;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const isLoopback = (address: string) => address === '::1' || address.startsWith('127.');

/** `host[:port]` → host name as the URL parser reads it (`[::1]` keeps its brackets). */
function hostnameOf(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

export function serverOrigin(app: FastifyInstance, config: OriginConfig): ServerOrigin {
  const publicOrigin = config.publicUrl ? new URL(config.publicUrl).origin : undefined;
  const publicHost = config.publicUrl ? new URL(config.publicUrl).hostname : undefined;
  // Not listening (tests inject requests): as strict as a loopback server. Once listening, the
  // address is kept: asking the socket (getsockname) on every request showed in the profile.
  let address: AddressInfo | null = null;
  const listening = () => (address ??= app.server.address() as AddressInfo | null);
  const loopback = () => {
    const address = listening();
    return address === null || isLoopback(address.address);
  };
  const listenOrigins = (): string[] => {
    const address = listening();
    if (!address) return [];
    if (isLoopback(address.address))
      return LOOPBACK_NAMES.map((name) => `http://${name}:${address.port}`);
    if (address.address === '0.0.0.0' || address.address === '::') return [];
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return [`http://${host}:${address.port}`];
  };
  const publicResource = config.publicUrl?.replace(/\/+$/, '');
  const own = () => {
    if (publicOrigin) return publicOrigin;
    const address = listening();
    if (!address) return 'http://localhost';
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  };
  /** A loopback origin of this server named by `host`, or null. */
  const loopbackOrigin = (host: string | undefined): string | null => {
    if (publicResource !== undefined || host === undefined) return null;
    const origin = URL.canParse(`http://${host}`) ? new URL(`http://${host}`).origin : null;
    return origin !== null && listenOrigins().includes(origin) && loopback() ? origin : null;
  };
  const resource = () => publicResource ?? own();
  return {
    own,
    resource,
    resourceFor: (host) => loopbackOrigin(host) ?? resource(),
    ownFor: (host) => loopbackOrigin(host) ?? own(),
    resources() {
      const names = publicResource === undefined && loopback() ? listenOrigins() : [];
      const all = names.includes(resource()) ? names : [resource(), ...names];
      return all.flatMap((name) => [name, `${name}/mcp`]);
    },
    allowsOrigin(origin) {
      return (
        origin === publicOrigin ||
        config.allowedOrigins.includes(origin) ||
        listenOrigins().includes(origin)
      );
    },
    allowsHost(host) {
      if (!loopback()) return true;
      const name = host === undefined ? null : hostnameOf(host);
      return name !== null && (LOOPBACK_NAMES.includes(name) || name === publicHost);
    },
  };
}
