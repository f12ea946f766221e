/**
 * Where a webhook may be sent (DESIGN §4.14): an `https` URL whose host is, or resolves only to,
 * public addresses. Loopback, private, link-local, shared (carrier-grade NAT), unique-local,
 * multicast, reserved and unspecified addresses are refused, IPv4 and IPv6 alike (an IPv4-mapped
 * IPv6 address as its IPv4 one), so a subscription cannot reach inside the network the server
 * runs in. The ranges are ipaddr.js's, a well-kept table of them, not hand-written. The check is
 * made at `webhook create` and again at each delivery on the addresses connected to (DNS
 * rebinding). `allowInsecure` (VMS_READ_WEBHOOK_ALLOW_INSECURE=1) allows `http` and any address.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Why a webhook URL or address is refused. */
export class WebhookAddressError extends Error {}

/** True for an address on the public internet (ipaddr.js's `unicast` range). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
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

/** Checks a webhook URL; returns it parsed, or throws WebhookAddressError saying why not. */
export async function checkWebhookUrl(text: string, options: AddressOptions): Promise<URL> {
  const url = checkUrlForm(text, options.allowInsecure);
  if (options.allowInsecure) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
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
  const inside = addresses.find((a) => !isPublicAddress(a));
  if (inside !== undefined)
    throw new WebhookAddressError(
      `${host === inside ? inside : `${host} resolves to ${inside}, which`} is not a public address (VMS_READ_WEBHOOK_ALLOW_INSECURE=1 allows it, for tests or a private network)`,
    );
  return url;
}
