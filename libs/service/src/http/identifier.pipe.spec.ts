import { BadRequestException } from '@nestjs/common';
import { IdentifierPipe, uuidPipe } from './identifier.pipe';

function refusal(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as BadRequestException).getResponse();
  }
  throw new Error('not refused');
}

describe('IdentifierPipe', () => {
  it('takes an identifier as it is and refuses anything else, naming the parameter', () => {
    const pipe = new IdentifierPipe('node');
    expect(pipe.transform('edge-01')).toBe('edge-01');
    expect(refusal(() => pipe.transform('bad id'))).toEqual({
      message: expect.stringMatching(/^invalid request: node: node must be 1-64 letters/),
      details: { code: 'INVALID_REQUEST', fields: [{ field: 'node', problems: [expect.any(String)] }] },
    });
  });

  it('takes a version-4 UUID in either case and refuses other UUIDs and text, naming the parameter', () => {
    const pipe = uuidPipe('session');
    for (const id of ['3f2b8c1e-7d4a-4e6b-9a1c-5b2d8e0f6a47', '3F2B8C1E-7D4A-4E6B-9A1C-5B2D8E0F6A47'])
      expect(pipe.transform(id)).toBe(id);
    for (const id of [
      'not-a-session',
      '3f2b8c1e-7d4a-1e6b-9a1c-5b2d8e0f6a47',
      '3f2b8c1e7d4a4e6b9a1c5b2d8e0f6a47',
      '',
    ])
      expect(refusal(() => pipe.transform(id))).toEqual({
        message:
          'invalid request: session: session must be a UUID (version 4), as the service gave it, e.g. 3f2b8c1e-7d4a-4e6b-9a1c-5b2d8e0f6a47',
        details: {
          code: 'INVALID_REQUEST',
          fields: [{ field: 'session', problems: [expect.stringContaining('UUID')] }],
        },
      });
  });
});
