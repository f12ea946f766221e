/**
 * Where a webhook may be sent (DESIGN §4.14): an `https` URL whose host is, or resolves only to,
 * public addresses. Loopback, private, link-local, shared (carrier-grade NAT), unique-local,
 * multicast, reserved and unspecified addresses are refused, IPv4 and IPv6 alike, so a
 * subscription cannot reach inside the network the server runs in. An IPv6 address that carries
 * an IPv4 one is judged by that IPv4 address (`carriedIPv4`): a translator or tunnel on the path
 * may deliver it there. The ranges are ipaddr.js's, a well-kept table of them, not hand-written.
 * The check is made at `webhook create` and again at each delivery on the addresses connected
 * to (DNS rebinding), by the same function (`addressRefusal`). `allowInsecure`
 * (VMS_READ_WEBHOOK_ALLOW_INSECURE=1) allows `http` and any address.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Why a webhook URL or address is refused. */
export class WebhookAddressError extends Error {}

/**
 * IPv6 prefixes whose addresses carry an IPv4 address, and the byte it starts at. ipaddr.js
 * names most of them as ranges of their own (which are not `unicast`, so they would all be
 * refused, public or not) and knows nothing of `::/96`, which it calls `unicast` (`::7f00:1`,
 * loopback through any stack that still honours IPv4-compatible addresses, passed).
 */
const CARRIERS = [
  { prefix: '::ffff:0:0/96', at: 12 }, // IPv4-mapped (RFC 4291)
  { prefix: '::ffff:0:0:0/96', at: 12 }, // IPv4-translated (RFC 6145)
  { prefix: '::/96', at: 12 }, // IPv4-compatible, deprecated (RFC 4291)
  { prefix: '64:ff9b::/96', at: 12 }, // NAT64's well-known prefix (RFC 6052)
  { prefix: '2002::/16', at: 2 }, // 6to4: the IPv4 address in bits 16–48 (RFC 3056)
].map(({ prefix, at }) => ({ range: ipaddr.IPv6.parseCIDR(prefix), at }));

/** The IPv4 address an IPv6 one carries, if it is of a prefix that carries one. */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  // Unspecified and loopback are themselves, not 0.0.0.0 and 0.0.0.1.
  if (['unspecified', 'loopback'].includes(address.range())) return null;
  const carrier = CARRIERS.find(({ range }) => address.match(range));
  if (!carrier) return null;
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(carrier.at, carrier.at + 4));
}

/**
 * Null for an address on the public internet (ipaddr.js's `unicast` range, for an IPv6 address
 * that carries an IPv4 one that IPv4 address's); else how the refusal names it: the address,
 * with the IPv4 address it carries (`::7f00:1 (IPv4 127.0.0.1)`).
 */
function notPublic(address: string): string | null {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  const carried = parsed.kind() === 'ipv6' ? carriedIPv4(parsed as ipaddr.IPv6) : null;
  if (carried) return carried.range() === 'unicast' ? null : `${address} (IPv4 ${carried})`;
  return parsed.range() === 'unicast' ? null : address;
}

/** True for an address on the public internet. */
export function isPublicAddress(address: string): boolean {
  return notPublic(address) === null;
}

/**
 * Why `host` may not be sent to, given the addresses it is (a literal) or resolves to; null when
 * every one is public. The one sentence `webhook create` and each delivery's connection give.
 */
export function addressRefusal(host: string, addresses: readonly string[]): string | null {
  for (const address of addresses) {
    const named = notPublic(address);
    if (named === null) continue;
    return host === address
      ? `${named} is not a public address`
      : `${host} resolves to ${named}, which is not a public address`;
  }
  return null;
}
export interface AddressOptions {
  allowInsecure: boolean;
  /** How a host name is resolved: every address it has (node's dns.lookup by default). */
  resolve?: (host: string) => Promise<string[]>;
}

const systemResolve = async (host: string) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The rules a URL's text must follow, whatever its host resolves to: absolute, `https` (or `http`
 * when insecure is allowed), no user name or password. Returns it parsed.
 */
export function checkUrlForm(text: string, allowInsecure: boolean): URL {
  if (!URL.canParse(text))
    throw new WebhookAddressError(`not an absolute URL: ${JSON.stringify(text)}`);
  const url = new URL(text);
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    throw new WebhookAddressError(
      allowInsecure
        ? 'the URL must be https or http'
        : 'the URL must be https (VMS_READ_WEBHOOK_ALLOW_INSECURE=1 allows http, for tests or a private network)',
    );
  if (url.username || url.password)
    throw new WebhookAddressError('the URL must not carry a user name or password');
  return url;
}

/** A URL's host as an address or name: an IPv6 literal without its brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/** Checks a webhook URL; returns it parsed, or throws WebhookAddressError saying why not. */
export async function checkWebhookUrl(text: string, options: AddressOptions): Promise<URL> {
  const url = checkUrlForm(text, options.allowInsecure);
  if (options.allowInsecure) return url;
  const host = hostOf(url);
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch (error) {
      throw new WebhookAddressError(`${host} does not resolve (${(error as Error).message})`);
    }
    if (addresses.length === 0) throw new WebhookAddressError(`${host} does not resolve`);
  }
  const refusal = addressRefusal(host, addresses);
  if (refusal !== null)
    throw new WebhookAddressError(
      `${refusal} (VMS_READ_WEBHOOK_ALLOW_INSECURE=1 allows it, for tests or a private network)`,
    );
  return url;
}
