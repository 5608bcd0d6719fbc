import { once } from 'node:events';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { hangUpSignal } from './hang-up-signal';

describe('hangUpSignal', () => {
  let server: Server;
  let signals: Promise<{ signal: AbortSignal; response: ServerResponse }>;
  let answer: (response: ServerResponse) => void;

  beforeEach(async () => {
    signals = new Promise((resolve) => {
      server = createServer((_request, response) => {
        resolve({ signal: hangUpSignal(response), response });
        answer(response);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterEach(async () => {
    server.close();
    await once(server, 'close');
  });

  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  it('aborts nothing once the answer was sent, when the connection closes after it', async () => {
    answer = (response) => response.end('ok');
    const outgoing = request(url(), { agent: false });
    outgoing.end();
    const [incoming] = (await once(outgoing, 'response')) as [NodeJS.ReadableStream];
    incoming.resume();
    await once(incoming, 'end');
    const { signal, response } = await signals;
    if (!response.closed) await once(response, 'close');
    expect(signal.aborted).toBe(false);
  });

  it('aborts when the client hangs up before its answer', async () => {
    answer = () => undefined;
    const outgoing = request(url(), { agent: false });
    outgoing.on('error', () => undefined);
    outgoing.end();
    const { signal } = await signals;
    outgoing.destroy();
    if (!signal.aborted) await once(signal, 'abort');
    expect(signal.aborted).toBe(true);
  });
});
