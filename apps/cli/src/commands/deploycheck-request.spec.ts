import { readCliEnv } from '../cli-env';
import { CliError } from '../cli-errors';
import { DEFAULT_AGBOT_URL, deployCheckBody, parseServiceRef, resolveAgbotUrl } from './deploycheck-request';

describe('parseServiceRef', () => {
  it('reads org/url@version, defaulting the org and leaving the version out when absent', () => {
    expect(parseServiceRef('acme/acme.web@1.2.3', 'mine')).toEqual({
      org: 'acme',
      url: 'acme.web',
      version: '1.2.3',
    });
    expect(parseServiceRef('acme/acme.web', 'mine')).toEqual({ org: 'acme', url: 'acme.web' });
    expect(parseServiceRef('acme.web@2.0.0', 'mine')).toEqual({
      org: 'mine',
      url: 'acme.web',
      version: '2.0.0',
    });
    expect(parseServiceRef('acme/path/to/svc', 'mine')).toEqual({ org: 'acme', url: 'path/to/svc' });
  });

  it.each(['acme/@1.0.0', '/acme.web', 'acme/acme.web@', ''])('refuses "%s"', (ref) => {
    expect(() => parseServiceRef(ref, 'mine')).toThrow(CliError);
  });
});

describe('deployCheckBody', () => {
  it('sends a policy or a service with its scope', () => {
    expect(deployCheckBody({ policy: 'web', checkHa: true, haGroup: 'line-1' }, 'acme')).toEqual({
      deploymentPolicy: 'web',
      checkHA: true,
      haGroup: 'line-1',
    });
    expect(deployCheckBody({ service: 'acme.web@1.0.0', node: 'edge-1' }, 'acme')).toEqual({
      service: { org: 'acme', url: 'acme.web', version: '1.0.0' },
      checkHA: false,
      node: 'edge-1',
    });
  });

  it('needs exactly one of --policy and --service, and at most one scope', () => {
    expect(() => deployCheckBody({}, 'acme')).toThrow('give exactly one of --policy and --service');
    expect(() => deployCheckBody({ policy: 'a', service: 'b' }, 'acme')).toThrow('exactly one');
    expect(() => deployCheckBody({ policy: 'a', node: 'n', haGroup: 'g' }, 'acme')).toThrow(
      'give at most one of --ha-group and --node',
    );
  });
});

describe('resolveAgbotUrl', () => {
  it('takes the flag, then CAREEN_AGBOT_URL, then the default', () => {
    expect(resolveAgbotUrl('http://a:1/', { agbotUrl: 'http://b:2' })).toBe('http://a:1');
    expect(resolveAgbotUrl(undefined, { agbotUrl: 'https://b:2/agbot/' })).toBe('https://b:2/agbot');
    expect(resolveAgbotUrl(undefined, {})).toBe(DEFAULT_AGBOT_URL);
  });

  it('reads CAREEN_AGBOT_URL through the environment reader, an empty value counting as unset', () => {
    expect(resolveAgbotUrl(undefined, readCliEnv({ CAREEN_AGBOT_URL: 'http://b:2/' }))).toBe('http://b:2');
    expect(resolveAgbotUrl(undefined, readCliEnv({ CAREEN_AGBOT_URL: '' }))).toBe(DEFAULT_AGBOT_URL);
  });

  it('refuses URLs that are not http(s) or carry credentials', () => {
    expect(() => resolveAgbotUrl('localhost:8081', {})).toThrow('invalid agbot URL "localhost:8081"');
    expect(() => resolveAgbotUrl('http://u:p@host', {})).toThrow('credentials, query and fragment');
  });
});
