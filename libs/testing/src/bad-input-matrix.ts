/**
 * The bad-input matrix every body-taking endpoint must pass: wrong types, missing and
 * unknown fields, a body over 1 MiB, malformed JSON, and JSON that is not an object — each a
 * 4xx in the common error shape naming the problem. Call inside a describe.
 */
import { http, type Credentials } from './http-client';

export interface BodyEndpoint {
  method: string;
  path: string;
  auth?: Credentials;
  /** A body the endpoint accepts (sent once). */
  valid: Record<string, unknown>;
  /** field → a value of the wrong type */
  wrongTypes: Record<string, unknown>;
  required: string[];
}

export function itRefusesBadBodies(endpoints: BodyEndpoint[], baseUrl: () => string): void {
  const send = (endpoint: BodyEndpoint, options: Parameters<typeof http>[3]) =>
    http(baseUrl(), endpoint.method, endpoint.path, { auth: endpoint.auth, ...options });
  const fields = (body: { details: { fields: { field: string }[] } }) =>
    body.details.fields.map((detail) => detail.field);

  describe.each(endpoints)('$method $path', (endpoint) => {
    it('accepts the valid body', async () => {
      const response = await send(endpoint, { body: endpoint.valid });
      expect([200, 201]).toContain(response.status);
    });

    it.each(Object.entries(endpoint.wrongTypes))(
      'names %s when it has the wrong type',
      async (field, value) => {
        const response = await send(endpoint, { body: { ...endpoint.valid, [field]: value } });
        expect(response.status).toBe(400);
        expect(fields(response.body)).toContain(field);
        expect(response.body.message).toContain(field);
      },
    );

    if (endpoint.required.length > 0) {
      it('names every missing required field at once', async () => {
        const response = await send(endpoint, { body: {} });
        expect(response.status).toBe(400);
        expect(fields(response.body)).toEqual(expect.arrayContaining(endpoint.required));
      });
    }

    it('refuses an unknown field, naming it', async () => {
      const response = await send(endpoint, { body: { ...endpoint.valid, isAdmin: true } });
      expect(response.status).toBe(400);
      expect(response.body.message).toContain('isAdmin');
    });

    it('answers 413 to a body over 1 MiB', async () => {
      const response = await send(endpoint, {
        body: { ...endpoint.valid, padding: 'x'.repeat(1024 * 1024 + 1) },
      });
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    });

    it('answers 400 to malformed JSON', async () => {
      const response = await send(endpoint, { rawBody: '{"name": "x",' });
      expect(response.status).toBe(400);
      expect(response.body.message).toContain('malformed JSON');
    });

    it.each([
      ['an array', '[]'],
      ['null', 'null'],
      ['a string', '"acme"'],
    ])('answers 400 to %s instead of an object', async (_what, raw) => {
      const response = await send(endpoint, { rawBody: raw });
      expect(response.status).toBe(400);
      expect(response.body.statusCode).toBe(400);
    });

    it('answers 400 when the body is not JSON at all', async () => {
      const response = await send(endpoint, {
        rawBody: 'id=acme',
        headers: { 'content-type': 'text/plain' },
      });
      expect(response.status).toBe(400);
    });
  });
}
