import { fastify, type FastifyInstance } from 'fastify';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordAnswers, type RecordedAnswer } from './answer-recorder';

describe('recordAnswers', () => {
  let folder: string;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'answers-'));
    app = fastify();
    recordAnswers(app, folder, 'test');
    app.get('/fresh', () => ({ keys: [] }));
    app.get('/cached', (request, reply) =>
      request.headers['if-none-match'] === '"same"' ? reply.code(304).send() : { keys: [] },
    );
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const recorded = (): RecordedAnswer[] =>
    readdirSync(folder).flatMap((file) =>
      readFileSync(join(folder, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as RecordedAnswer),
    );

  it('keeps the JSON body an answer carried, and none for a 304 that carried none', async () => {
    expect((await fetch(`${base}/fresh`)).status).toBe(200);
    const revalidated = await fetch(`${base}/cached`, {
      headers: { 'if-none-match': '"same"' },
    });
    expect(revalidated.status).toBe(304);
    expect(recorded()).toEqual([
      expect.objectContaining({ route: '/fresh', status: 200, body: { keys: [] } }),
      expect.not.objectContaining({ body: expect.anything() }),
    ]);
    expect(recorded()[1]).toMatchObject({ route: '/cached', status: 304 });
  });
});
