import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import parseForwarded from 'forwarded-parse';
import ipaddr from 'ipaddr.js';

/**
 * The client's address (DESIGN §4.16), decided once where a request enters: the connection's peer,
 * unless that peer is one of VMS_READ_TRUSTED_PROXIES; then the rightmost entry of its
 * `X-Forwarded-For` (or, without one, of its `Forwarded` header's `for=`) that is not a trusted
 * proxy. Every bound per address (address-bounds.ts) counts by it, and the access trail records it.
 * Without trusted proxies both headers are ignored: anyone can write them.
 */
export type ClientAddressOf = (raw: IncomingMessage) => string;

const ADDRESS = Symbol('vms-read client address');
type Marked = IncomingMessage & { [ADDRESS]?: string };

/** Where proxies are: loopback and private networks. */
const PROXY_RANGES = new Set([
  'loopback',
  'private',
  'uniqueLocal',
  'linkLocal',
  'carrierGradeNat',
]);

/** A trusted proxy entry: one address, or a CIDR range. */
type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses VMS_READ_TRUSTED_PROXIES' entries; throws on one that is neither an address nor a range. */
export function trustedRanges(entries: readonly string[]): Range[] {
  return entries.map((entry) => {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const address = ipaddr.parse(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

/** An address as compared and kept: IPv4-mapped IPv6 as IPv4, brackets and ports dropped. */
function normalized(text: string): string | null {
  let value = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  return ipaddr.isValid(value) ? ipaddr.process(value).toString() : null;
}

function inRanges(address: string, ranges: readonly Range[]): boolean {
  const parsed = ipaddr.process(address);
  return ranges.some(
    ([range, bits]) => range.kind() === parsed.kind() && parsed.match([range, bits] as never),
  );
}

/** The hops a trusted proxy reports, nearest last: X-Forwarded-For, else Forwarded's `for=`. */
function reportedHops(raw: IncomingMessage): string[] {
  const forwardedFor = raw.headers['x-forwarded-for'];
  if (forwardedFor !== undefined)
    return String(forwardedFor)
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
  const forwarded = raw.headers.forwarded;
  if (forwarded === undefined) return [];
  try {
    return parseForwarded(forwarded).flatMap((element) =>
      element.for === undefined ? [] : [element.for],
    );
  } catch {
    // A header the proxy did not write well: as if it had written none.
    return [];
  }
}

/**
 * How a request's client address is found, for the given trusted proxies. The address is kept on
 * the request, so the hooks, the authorization server (which sees the raw request) and the log
 * ask once.
 */
export function clientAddressOf(
  trustedProxies: readonly string[],
  /**
   * Told once, the first time a peer on a private network (where proxies are) sends forwarding
   * headers it is not trusted for: likely a proxy the setting forgot.
   */
  untrustedProxy: (peer: string) => void = () => {},
): ClientAddressOf {
  const ranges = trustedRanges(trustedProxies);
  let warned = false;
  const decide = (raw: IncomingMessage): string => {
    const peer = normalized(raw.socket?.remoteAddress ?? '') ?? 'unknown';
    if (peer === 'unknown') return peer;
    if (ranges.length === 0 || !inRanges(peer, ranges)) {
      const forwarding = raw.headers['x-forwarded-for'] ?? raw.headers.forwarded;
      if (!warned && forwarding !== undefined && PROXY_RANGES.has(ipaddr.process(peer).range())) {
        warned = true;
        untrustedProxy(peer);
      }
      return peer;
    }
    let address = peer;
    for (const hop of reportedHops(raw).reverse()) {
      const next = normalized(hop);
      // An obfuscated or unknown hop (`for=unknown`, `_hidden`): the last address known stands.
      if (next === null) return address;
      address = next;
      if (!inRanges(next, ranges)) return next;
    }
    return address;
  };
  return (raw) => ((raw as Marked)[ADDRESS] ??= decide(raw));
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The client's address (client-address.ts): the peer, or what a trusted proxy says. */
    readonly clientAddress: string;
  }
}

/**
 * Gives every request its `clientAddress`, for `trustedProxies`; the first time forwarding
 * headers come from a private peer that is not trusted, one `warn` line says so.
 */
export function installClientAddress(
  app: FastifyInstance,
  trustedProxies: readonly string[],
): ClientAddressOf {
  const clientAddress = clientAddressOf(trustedProxies, (peer) =>
    app.log.warn(
      { peer },
      'requests arrive with X-Forwarded-For or Forwarded from an address VMS_READ_TRUSTED_PROXIES does not name: those headers are ignored, and every client behind it shares its bounds (docs/deploy.md)',
    ),
  );
  app.decorateRequest('clientAddress', {
    getter(this: FastifyRequest) {
      return clientAddress(this.raw);
    },
  });
  return clientAddress;
}
