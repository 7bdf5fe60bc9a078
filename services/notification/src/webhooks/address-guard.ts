import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { normalHost } from '../settings.js';

/** Longest webhook URL taken. */
export const WEBHOOK_URL_MAX = 2048;

/** A target refused: the message says why, for the 400 of the API and the delivery log. */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
}

/** What a URL's host resolves to (every address): replaceable in tests, `dns.lookup` otherwise. */
export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolve = (host) => lookup(host, { all: true, verbatim: true });

/** Why the URL's form is refused, or null: http(s) only, no credentials, bounded length. */
export function urlFormProblem(raw: string): string | null {
  if (raw.length > WEBHOOK_URL_MAX) return `must be at most ${WEBHOOK_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not hold credentials (put them in the receiver, not the URL)';
  if (!url.hostname) return 'must name a host';
  return null;
}

/**
 * Why an address may not be a webhook's target, or null. Only public unicast passes: ipaddr.js
 * names every special range (loopback, private, link-local, unique-local, carrier-grade NAT,
 * multicast, unspecified, reserved, 6to4/Teredo tunnels that may carry any of those), and the
 * cloud metadata addresses sit in link-local (169.254.169.254, fe80::) or unique-local (fd00:ec2::254).
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function addressProblem(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return `"${address}" is not an IP address`;
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `resolves to ${address}, a ${range} address`;
}

export interface CheckedTarget {
  url: URL;
  /** The address checked, which the delivery connects to (never resolved again: DNS rebinding). */
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the URL's host once and checks every address it has; the first is the one to connect
 * to. A host in `allowedHosts` (WEBHOOK_ALLOWED_HOSTS) skips the address check, not the pinning.
 * Throws TargetRefusedError.
 */
export async function checkTarget(
  raw: string,
  allowedHosts: readonly string[],
  resolve: Resolve = systemResolve,
): Promise<CheckedTarget> {
  const form = urlFormProblem(raw);
  if (form) throw new TargetRefusedError(form);
  const url = new URL(raw);
  const host = normalHost(url.hostname);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new TargetRefusedError(`host "${host}" does not resolve`);
    }
    if (addresses.length === 0) throw new TargetRefusedError(`host "${host}" does not resolve`);
  }
  if (!allowedHosts.includes(host)) {
    for (const { address } of addresses) {
      const problem = addressProblem(address);
      if (problem) throw new TargetRefusedError(`host "${host}" ${problem}`);
    }
  }
  const first = addresses[0];
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
