/**
 * Where a webhook may be sent: an http(s) URL whose host resolves only to public addresses,
 * unless the operator allows a private network (CAREEN_NOTIFIER_ALLOWED_NETWORKS). Checked when a
 * subscription is made and again before each call, so a subscription cannot be used to reach
 * the hub's own network (server-side request forgery), even after its name is re-pointed.
 */
import { type NetworkList } from '@careen/service';
import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const PRIVATE = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  // Local-use NAT64 (RFC 8215): translates to the site's own IPv4 networks.
  ['64:ff9b:1::', 48],
] as const)
  PRIVATE.addSubnet(address, prefix, 'ipv6');

/** URLs whose answer is remembered, at most; past it the memory starts over. */
const REMEMBERED = 10_000;

export class WebhookTargets {
  /** Answers for URLs naming their host by address: they cannot change, unlike a name's. */
  private readonly byAddress = new Map<string, string | undefined>();

  constructor(
    private readonly allowed: NetworkList,
    private readonly resolve: (host: string) => Promise<string[]> = async (host) =>
      (await lookup(host, { all: true })).map((each) => each.address),
  ) {}

  /** Why `url` may not be called, or undefined when it may. */
  async problem(url: string): Promise<string | undefined> {
    if (this.byAddress.has(url)) return this.byAddress.get(url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'url must be an absolute http:// or https:// URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return 'url must be an absolute http:// or https:// URL';
    if (parsed.username || parsed.password) return 'url must not carry credentials';
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) {
      const answer = this.refusal(host, [host]);
      if (this.byAddress.size >= REMEMBERED) this.byAddress.clear();
      this.byAddress.set(url, answer);
      return answer;
    }
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch {
      return `url's host "${host}" does not resolve`;
    }
    return this.refusal(host, addresses);
  }

  private refusal(host: string, addresses: string[]): string | undefined {
    const refused = addresses.find((address) => this.isPrivate(address) && !this.allowed.includes(address));
    return refused === undefined
      ? undefined
      : `url's host "${host}" is a private, loopback or link-local address (${refused}); an operator may allow its network with CAREEN_NOTIFIER_ALLOWED_NETWORKS`;
  }

  private isPrivate(address: string): boolean {
    const carried = embeddedIpv4(address);
    if (carried !== undefined && PRIVATE.check(carried, 'ipv4')) return true;
    return PRIVATE.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The IPv4 address an IPv6 one stands for, where its prefix says it carries one: IPv4-mapped
 * and -translated (`::ffff:0:0/96`, `::ffff:0:0:0/96`), NAT64 (`64:ff9b::/96`), 6to4
 * (`2002::/16`) and a Teredo client (`2001::/32`, its address inverted).
 */
export function embeddedIpv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const ipv6 = ipaddr.IPv6.parse(address);
  const bytes = ipv6.toByteArray();
  const range = ipv6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return bytes.slice(12).join('.');
  if (range === '6to4') return bytes.slice(2, 6).join('.');
  if (range === 'teredo')
    return bytes
      .slice(12)
      .map((byte) => byte ^ 0xff)
      .join('.');
  return undefined;
}
