import { AuthenticationError, AuthErrorCode } from './auth.errors';
import { parseAuthorizationHeader } from './authorization-header';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

describe('parseAuthorizationHeader', () => {
  it('answers undefined when there is no header', () => {
    expect(parseAuthorizationHeader(undefined)).toBeUndefined();
  });

  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc.def.ghi', 'abc.def.ghi'],
    ['BEARER   abc.def-_ghi  ', 'abc.def-_ghi'],
  ])('reads the bearer token from %j', (header, token) => {
    expect(parseAuthorizationHeader(header)).toEqual({ scheme: 'bearer', token });
  });

  it.each([
    ['acme/alice:s3cret', { org: 'acme', id: 'alice', secret: 's3cret' }],
    ['acme/edge-1:to:ken:with:colons', { org: 'acme', id: 'edge-1', secret: 'to:ken:with:colons' }],
    ['root/root:pässwörd', { org: 'root', id: 'root', secret: 'pässwörd' }],
    ['acme/alice:a/b', { org: 'acme', id: 'alice', secret: 'a/b' }],
  ])('reads org, id and secret from Basic %j', (userPass, expected) => {
    expect(parseAuthorizationHeader(basic(userPass))).toEqual({ scheme: 'basic', ...expected });
    expect(parseAuthorizationHeader(basic(userPass).replace('Basic', 'basic'))).toEqual({
      scheme: 'basic',
      ...expected,
    });
  });

  it.each([
    ['an empty header', '', 'authorization header is empty'],
    ['a bare Bearer', 'Bearer', 'bearer credentials must be a single token'],
    ['a bearer token with spaces', 'Bearer abc def', 'bearer credentials must be a single token'],
    ['a bare Basic', 'Basic', 'basic credentials must be base64 encoded'],
    ['Basic that is not base64', 'Basic %%%', 'basic credentials must be base64 encoded'],
    ['Basic without an org', basic('alice:s3cret'), 'basic credentials must be org/id:secret'],
    ['Basic without a secret', basic('acme/alice:'), 'basic credentials must be org/id:secret'],
    ['Basic without a colon', basic('acme/alice'), 'basic credentials must be org/id:secret'],
    ['Basic with an empty org', basic('/alice:s3cret'), 'basic credentials must be org/id:secret'],
    ['Basic with an empty id', basic('acme/:s3cret'), 'basic credentials must be org/id:secret'],
    ['Basic with a nested id', basic('acme/a/b:s3cret'), 'basic credentials must be org/id:secret'],
    [
      'an unknown scheme',
      'Digest username="x"',
      'unsupported authorization scheme "Digest"; use Bearer or Basic',
    ],
  ])('rejects %s with a clear message', (_label, header, message) => {
    let thrown: unknown;
    try {
      parseAuthorizationHeader(header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AuthenticationError);
    expect(thrown).toMatchObject({ code: AuthErrorCode.MalformedCredentials, message });
  });
});
