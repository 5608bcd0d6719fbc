/**
 * A test's own Postgres, run by a process of its own so that the test can stop it (a fast
 * shutdown, as SIGTERM to this process asks for) and start it again on the same data and port.
 * `node -r @swc-node/register postgres-process.ts <dataDir> <port>`; prints `ready` when it
 * accepts connections.
 */
import { startEmbeddedPostgres } from '@careen/devstack';

const [dataDir, port] = process.argv.slice(2);
void startEmbeddedPostgres({ dataDir: dataDir!, port: Number(port), persistent: true }).then((postgres) => {
  process.once('SIGTERM', () => void postgres.stop().then(() => process.exit(0)));
  process.stdout.write('ready\n');
});
