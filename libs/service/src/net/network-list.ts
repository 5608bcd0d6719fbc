/**
 * A list of networks from a setting of comma-separated CIDRs, IPv4 or IPv6 (the agbot's
 * FleetLock trusted networks, the notifier's allowed webhook targets). An IPv4 address seen on
 * a dual-stack socket as `::ffff:a.b.c.d` is matched as IPv4.
 */
import { isIP, BlockList } from 'node:net';
import {
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';

export class NetworkList {
  private constructor(private readonly list: BlockList) {}

  /** Throws naming the first entry that is not a CIDR. */
  static parse(cidrs: string): NetworkList {
    const list = new BlockList();
    for (const entry of cidrs
      .split(',')
      .map((each) => each.trim())
      .filter(Boolean)) {
      const parsed = parseCidr(entry);
      if (!parsed) throw new Error(`"${entry}" is not a CIDR such as 10.0.0.0/8 or fd00::/8`);
      list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    return new NetworkList(list);
  }

  includes(remoteAddress: string | undefined): boolean {
    if (!remoteAddress) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
    const address = mapped ? mapped[1]! : remoteAddress;
    const family = isIP(address);
    if (family === 0) return false;
    return this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

function parseCidr(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, prefixText, ...rest] = entry.split('/');
  if (!address || prefixText === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefixText))
    return undefined;
  const family = isIP(address);
  const prefix = Number(prefixText);
  if (family === 4 && prefix <= 32) return { address, prefix, family: 'ipv4' };
  if (family === 6 && prefix <= 128) return { address, prefix, family: 'ipv6' };
  return undefined;
}

/** Config validation of a setting that lists CIDRs. */
@ValidatorConstraint({ name: 'cidrList' })
export class CidrListConstraint implements ValidatorConstraintInterface {
  private problem = '';

  validate(value: unknown): boolean {
    if (typeof value !== 'string') {
      this.problem = 'must be a comma-separated list of CIDRs';
      return false;
    }
    try {
      NetworkList.parse(value);
      return true;
    } catch (error) {
      this.problem = (error as Error).message;
      return false;
    }
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property}: ${this.problem}`;
  }
}
