/**
 * The floor a hot route is measured against: a bare node:http server in a process of its own
 * that answers each request with one Postgres round trip (`SELECT $1::int`) as JSON. What a
 * route costs above this is what Careen's own layers (Nest, validation, authentication,
 * serialization, its statements) add. Prints its port on stdout once listening.
 */
import { createServer } from 'node:http';
import { Pool } from 'pg';

const databaseUrl = process.argv[2];
if (!databaseUrl) throw new Error('usage: floor-server <database url>');
const pool = new Pool({ connectionString: databaseUrl, max: 10 });

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    pool.query<{ n: number }>('SELECT $1::int AS n', [1]).then(
      ({ rows }) => {
        const body = JSON.stringify({ n: rows[0]?.n });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        response.end(body);
      },
      (error: unknown) => {
        response.writeHead(500);
        response.end(String(error));
      },
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
