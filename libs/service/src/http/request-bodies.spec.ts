import { BadRequestException } from '@nestjs/common';
import { parseJsonBody } from './request-bodies';

describe('parseJsonBody', () => {
  it('takes an object or an array, and an empty body as an empty object', () => {
    expect(parseJsonBody('{"name": "x"}')).toEqual({ name: 'x' });
    expect(parseJsonBody('[1, 2]')).toEqual([1, 2]);
    expect(parseJsonBody(' \n')).toEqual({});
  });

  it.each([
    ['malformed JSON', '{"name": "x",', /^malformed JSON body: .+/],
    ['a bare string', '"x"', 'malformed JSON body: a JSON object or array is expected'],
    ['null', 'null', 'malformed JSON body: a JSON object or array is expected'],
    ['a __proto__ key', '{"__proto__": {"admin": true}}', /^malformed JSON body: .*prototype/],
    [
      'a constructor.prototype key',
      '{"constructor": {"prototype": {}}}',
      /^malformed JSON body: .*prototype/,
    ],
  ])('refuses %s with a 400 that names it', (_what, text, message) => {
    expect(() => parseJsonBody(text)).toThrow(BadRequestException);
    expect(() => parseJsonBody(text)).toThrow(message);
  });
});
