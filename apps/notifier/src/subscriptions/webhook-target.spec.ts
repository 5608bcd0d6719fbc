import { NetworkList } from '@careen/service';
import { embeddedIpv4, WebhookTargets } from './webhook-target';

const names: Record<string, string[]> = {
  'vnfm.example': ['203.0.113.7'],
  'sneaky.example': ['203.0.113.8', '10.1.2.3'],
  'local.example': ['127.0.0.1'],
};
const resolve = async (host: string) => {
  const found = names[host];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

describe('webhook targets', () => {
  const none = new WebhookTargets(NetworkList.parse(''), resolve);

  it('takes public http(s) targets, by name or address', async () => {
    expect(await none.problem('https://vnfm.example/hook')).toBeUndefined();
    expect(await none.problem('http://203.0.113.9:8080/')).toBeUndefined();
  });

  it('takes a public IPv4 address written through NAT64 or 6to4', async () => {
    expect(await none.problem('http://[64:ff9b::203.0.113.9]/')).toBeUndefined();
    expect(await none.problem('http://[2002:cb00:7109::1]/')).toBeUndefined();
  });

  it.each([
    ['ftp://vnfm.example/', 'absolute http:// or https://'],
    ['vnfm.example/hook', 'absolute http:// or https://'],
    ['https://user:pw@vnfm.example/', 'credentials'],
    ['https://nowhere.example/', 'does not resolve'],
    ['http://127.0.0.1:9000/', 'loopback'],
    ['http://[::1]:9000/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[64:ff9b::10.0.0.1]/', '64:ff9b::a00:1'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'private'],
    ['http://[2002:c0a8:0101::1]/', '2002:c0a8:101::1'],
    ['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', 'private'],
    ['http://[64:ff9b:1::8.8.8.8]/', 'private'],
    ['https://sneaky.example/', '10.1.2.3'],
    ['https://local.example/', '127.0.0.1'],
  ])('refuses %s', async (url, problem) => {
    expect(await none.problem(url)).toContain(problem);
  });

  it('takes a private target the operator allows, and no other', async () => {
    const loopback = new WebhookTargets(NetworkList.parse('127.0.0.0/8,::1/128'), resolve);
    expect(await loopback.problem('http://127.0.0.1:9000/')).toBeUndefined();
    expect(await loopback.problem('https://local.example/')).toBeUndefined();
    expect(await loopback.problem('http://10.0.0.1/')).toContain('10.0.0.1');
  });

  it.each([
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['64:ff9b::a00:1', '10.0.0.1'],
    ['2002:c0a8:101::1', '192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', '10.0.0.1'],
    ['2001:db8::1', undefined],
    ['10.0.0.1', undefined],
  ])('reads the IPv4 address %s carries: %s', (address, carried) => {
    expect(embeddedIpv4(address)).toBe(carried);
  });
});
