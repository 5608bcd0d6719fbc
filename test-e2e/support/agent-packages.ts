/** Agent packages put into a running exchange, as a hub admin publishes them. */
import { buildPackage } from '@careen/agent/src/testing/agent-package.fixture';
import { http, type Credentials } from '@careen/testing';

/** Publishes agent package `version` (the agent's own fixture); answers its bytes. */
export async function publishAgentPackage(
  exchangeUrl: string,
  auth: Credentials,
  version: string,
): Promise<Buffer> {
  const bytes = await buildPackage({ version });
  const published = await http(exchangeUrl, 'POST', '/v1/agent-packages', {
    auth,
    rawBody: bytes,
    headers: { 'content-type': 'application/gzip' },
  });
  if (published.status !== 201)
    throw new Error(
      `publishing agent package ${version}: ${published.status} ${JSON.stringify(published.body)}`,
    );
  return bytes;
}
