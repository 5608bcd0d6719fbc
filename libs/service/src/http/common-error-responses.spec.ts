import { type OpenAPIObject } from '@nestjs/swagger';
import { documentCommonErrors } from './common-error-responses';

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } };

function documentWith(paths: OpenAPIObject['paths']): OpenAPIObject {
  return { openapi: '3.0.0', info: { title: 't', version: 'v1' }, paths };
}

describe('documentCommonErrors', () => {
  it('adds what the shared parts answer to a logged-in route with a path parameter and a body', () => {
    const document = documentCommonErrors(
      documentWith({
        '/v1/orgs/{org}/things': {
          put: {
            parameters: [{ name: 'org', in: 'path', required: true }],
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            security: [{ bearer: [] }, { basic: [] }],
            responses: { 200: { description: 'the thing' } },
          },
        },
      }),
    );
    const responses = document.paths['/v1/orgs/{org}/things']!.put!.responses;
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '404', '413', '503']);
    expect(responses[404]).toMatchObject({ content: errorContent });
    expect(responses[200]).toEqual({ description: 'the thing' });
    expect(document.components!.schemas!.ErrorBody).toMatchObject({
      required: ['statusCode', 'error', 'message', 'details'],
    });
  });

  it('adds no login answers to a public route, nor 400 or 404 where nothing is validated or named', () => {
    const document = documentCommonErrors(
      documentWith({
        '/v1/auth/jwks': { get: { security: [], responses: { 200: { description: 'keys' } } } },
      }),
    );
    expect(Object.keys(document.paths['/v1/auth/jwks']!.get!.responses).sort()).toEqual(['200', '503']);
  });

  it("keeps a route's own error answers, giving them the error body", () => {
    const document = documentCommonErrors(
      documentWith({
        '/v1/rollouts/{id}/pause': {
          post: {
            parameters: [{ name: 'id', in: 'path', required: true }],
            security: [{ basic: [] }],
            responses: { 200: { description: 'paused' }, 409: { description: 'the rollout is not running' } },
          },
        },
      }),
    );
    expect(document.paths['/v1/rollouts/{id}/pause']!.post!.responses[409]).toEqual({
      description: 'the rollout is not running',
      content: errorContent,
    });
  });
});
