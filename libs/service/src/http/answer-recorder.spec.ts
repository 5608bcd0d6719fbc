import express from 'express';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerRecorder, type RecordedAnswer } from './answer-recorder';

describe('answerRecorder', () => {
  let folder: string;
  let server: Server;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'answers-'));
    const app = express();
    app.use(answerRecorder(folder, 'test'));
    app.get('/fresh', (_request, response) => void response.json({ keys: [] }));
    app.get('/cached', (_request, response) => {
      response.setHeader('ETag', '"same"');
      response.json({ keys: [] });
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
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
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/fresh`)).status).toBe(200);
    const revalidated = await fetch(`${base}/cached`, {
      headers: { 'if-none-match': '"same"', 'cache-control': 'max-age=0' },
    });
    expect(revalidated.status).toBe(304);
    expect(recorded()).toEqual([
      expect.objectContaining({ route: '/fresh', status: 200, body: { keys: [] } }),
      expect.not.objectContaining({ body: expect.anything() }),
    ]);
    expect(recorded()[1]).toMatchObject({ route: '/cached', status: 304 });
  });
});
