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

interface PodSpec {
  containers: { env: ContainerEnv[]; volumeMounts?: { name: string; mountPath: string }[] }[];
  volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
}

/** The pod of the service's Deployment (its file holds more documents). */
function manifestPod(service: string): PodSpec {
  const documents = parseAllDocuments(
    readFileSync(join(root, `deploy/kubernetes/base/services/${service}.yaml`), 'utf8'),
  );
  const deployment = documents
    .map((document) => document.toJS())
    .find((resource) => resource?.kind === 'Deployment') as { spec: { template: { spec: PodSpec } } };
  return deployment.spec.template.spec;
}

/** The environment of the container of the service's Deployment. */
function manifestEnv(service: string): Map<string, ContainerEnv> {
  return new Map(manifestPod(service).containers[0]!.env.map((entry) => [entry.name, entry]));
}

const HUB_SERVICES = ['exchange', 'agbot', 'maintenance-session', 'deployment-orchestrator', 'notifier'];

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

  it('gives the deployment orchestrator the hub admin password, in both forms', () => {
    const compose = read('docker-compose.yml') as {
      services: Record<string, { environment: Record<string, string> }>;
    };
    expect(
      compose.services['deployment-orchestrator']!.environment.CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD,
    ).toBe(compose.services.exchange!.environment.CAREEN_ROOT_PASSWORD);
    expect(
      manifestEnv('deployment-orchestrator').get('CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD')?.valueFrom
        ?.secretKeyRef,
    ).toEqual(manifestEnv('exchange').get('CAREEN_ROOT_PASSWORD')?.valueFrom?.secretKeyRef);
  });

  it('connects every service to the bus with its NATS creds, and lets the notifier issue users, in both forms', () => {
    const compose = read('docker-compose.yml') as {
      services: Record<
        string,
        { environment: Record<string, string>; volumes?: string[]; command?: string[] }
      >;
    };
    expect(compose.services.nats!.command).toEqual(expect.arrayContaining(['-c', '/nats-auth/auth.conf']));
    for (const service of HUB_SERVICES) {
      expect([service, compose.services[service]!.environment.CAREEN_NATS_CREDS]).toEqual([
        service,
        '/nats-auth/services.creds',
      ]);
      expect(compose.services[service]!.volumes).toContain('nats-auth:/nats-auth:ro');
    }
    const notifier = compose.services.notifier!.environment;
    expect(notifier.CAREEN_NOTIFIER_NATS_ACCOUNT_FILE).toBe('/nats-auth/account');
    expect(notifier.CAREEN_NOTIFIER_NATS_SIGNING_KEY_FILE).toBe('/nats-auth/signing-key');
    const exchange = compose.services.exchange!.environment;
    expect(exchange.CAREEN_EXCHANGE_NATS_ACCOUNT_FILE).toBe('/nats-auth/account');
    expect(exchange.CAREEN_EXCHANGE_NATS_SIGNING_KEY_FILE).toBe('/nats-auth/signing-key');
    expect(exchange.CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY_FILE).toBe('/nats-auth/operator-signing-key');
    expect(exchange.CAREEN_EXCHANGE_NATS_SYSTEM_CREDS).toBe('/nats-auth/system.creds');
    expect(notifier.CAREEN_NOTIFIER_EXCHANGE_PASSWORD).toBe(
      compose.services.exchange!.environment.CAREEN_ROOT_PASSWORD,
    );

    const config = read('deploy/kubernetes/base/config.yaml') as { data: Record<string, string> };
    for (const service of HUB_SERVICES) {
      const pod = manifestPod(service);
      const mount = pod.containers[0]!.volumeMounts?.find((each) => each.name === 'nats-credentials');
      const volume = pod.volumes?.find((each) => each.name === 'nats-credentials');
      expect([service, `${mount?.mountPath}/${volume?.secret?.items?.[0]?.path}`]).toEqual([
        service,
        config.data.CAREEN_NATS_CREDS,
      ]);
      expect(volume?.secret?.secretName).toBe('careen-nats');
    }
    const env = manifestEnv('notifier');
    const exchangeEnv = manifestEnv('exchange');
    for (const [settings, prefix] of [
      [env, 'CAREEN_NOTIFIER'],
      [exchangeEnv, 'CAREEN_EXCHANGE'],
    ] as const) {
      expect(settings.get(`${prefix}_NATS_ACCOUNT`)?.valueFrom?.secretKeyRef).toEqual({
        name: 'careen-nats',
        key: 'account',
      });
      expect(settings.get(`${prefix}_NATS_SIGNING_KEY`)?.valueFrom?.secretKeyRef).toEqual({
        name: 'careen-nats',
        key: 'signing-key',
      });
    }
    // The exchange's system user is a second file of the same mounted Secret.
    expect(exchangeEnv.get('CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY')?.valueFrom?.secretKeyRef).toEqual({
      name: 'careen-nats',
      key: 'operator-signing-key',
    });
    const exchangePod = manifestPod('exchange');
    const mount = exchangePod.containers[0]!.volumeMounts!.find((each) => each.name === 'nats-credentials')!;
    const items = exchangePod.volumes!.find((each) => each.name === 'nats-credentials')!.secret!.items!;
    expect(items.map((item) => `${mount.mountPath}/${item.path}`)).toContain(
      exchangeEnv.get('CAREEN_EXCHANGE_NATS_SYSTEM_CREDS')?.value,
    );
    expect(items.find((item) => item.path === 'system.creds')?.key).toBe('system.creds');
    expect(env.get('CAREEN_NOTIFIER_EXCHANGE_PASSWORD')?.valueFrom?.secretKeyRef).toEqual(
      manifestEnv('exchange').get('CAREEN_ROOT_PASSWORD')?.valueFrom?.secretKeyRef,
    );
  });
});
