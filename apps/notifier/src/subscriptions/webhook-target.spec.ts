import { NetworkList } from '@careen/service';
import { WebhookTargets } from './webhook-target';

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

  it.each([
    ['ftp://vnfm.example/', 'absolute http:// or https://'],
    ['vnfm.example/hook', 'absolute http:// or https://'],
    ['https://user:pw@vnfm.example/', 'credentials'],
    ['https://nowhere.example/', 'does not resolve'],
    ['http://127.0.0.1:9000/', 'loopback'],
    ['http://[::1]:9000/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
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
});
