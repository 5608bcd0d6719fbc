/**
 * The deployment forms beside `npm start` (docker-compose.yml and the Kubernetes manifests)
 * give each service what its features need: an agbot without the hub admin's password would
 * boot, log a warning and place nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const root = join(__dirname, '..');
const read = (path: string) => parse(readFileSync(join(root, path), 'utf8'), { merge: true });

interface ContainerEnv {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

/** The environment of the container of the service's Deployment (its file holds more documents). */
function manifestEnv(service: string): Map<string, ContainerEnv> {
  const documents = parseAllDocuments(
    readFileSync(join(root, `deploy/kubernetes/services/${service}.yaml`), 'utf8'),
  );
  const deployment = documents
    .map((document) => document.toJS())
    .find((resource) => resource?.kind === 'Deployment') as {
    spec: { template: { spec: { containers: { env: ContainerEnv[] }[] } } };
  };
  return new Map(deployment.spec.template.spec.containers[0]!.env.map((entry) => [entry.name, entry]));
}

describe('deployment forms', () => {
  it('docker-compose.yml signs the agbot in with the password the exchange gives the hub admin', () => {
    const compose = read('docker-compose.yml') as {
      services: Record<string, { environment: Record<string, string> }>;
    };
    const agbot = compose.services.agbot!.environment;
    expect(agbot.CAREEN_AGBOT_EXCHANGE_PASSWORD).toBeDefined();
    expect(agbot.CAREEN_AGBOT_EXCHANGE_PASSWORD).toBe(
      compose.services.exchange!.environment.CAREEN_ROOT_PASSWORD,
    );
    expect(agbot.CAREEN_EXCHANGE_URL).toBe('http://exchange:8080');
  });

  it('the Kubernetes agbot reads the same secret key the exchange sets the hub admin from', () => {
    const agbot = manifestEnv('agbot').get('CAREEN_AGBOT_EXCHANGE_PASSWORD');
    const exchange = manifestEnv('exchange').get('CAREEN_ROOT_PASSWORD');
    expect(agbot?.valueFrom?.secretKeyRef).toBeDefined();
    expect(agbot?.valueFrom?.secretKeyRef).toEqual(exchange?.valueFrom?.secretKeyRef);
  });

  it('gives the maintenance service the hub admin password, the agbot and its public URL, in both forms', () => {
    const compose = read('docker-compose.yml') as {
      services: Record<string, { environment: Record<string, string> }>;
    };
    const service = compose.services['maintenance-session']!.environment;
    expect(service.CAREEN_MAINTENANCE_EXCHANGE_PASSWORD).toBe(
      compose.services.exchange!.environment.CAREEN_ROOT_PASSWORD,
    );
    expect(service.CAREEN_AGBOT_URL).toBe('http://agbot:8081');
    expect(service.CAREEN_MAINTENANCE_PUBLIC_URL).toMatch(/^http:\/\/.+:8082$/);

    const manifest = manifestEnv('maintenance-session');
    expect(manifest.get('CAREEN_MAINTENANCE_EXCHANGE_PASSWORD')?.valueFrom?.secretKeyRef).toEqual(
      manifestEnv('exchange').get('CAREEN_ROOT_PASSWORD')?.valueFrom?.secretKeyRef,
    );
    expect(manifest.get('CAREEN_AGBOT_URL')?.value).toBe('http://agbot.careen.svc:8081');
    expect(manifest.get('CAREEN_MAINTENANCE_PUBLIC_URL')?.value).toBeDefined();
  });
});
