/**
 * Each hub service declares its required settings once, in its config class (those it cannot
 * start without, and those marked @DeploymentSetting without which a feature is off), and every
 * deployment form gives every one of them: docker-compose.yml, both Kubernetes overlays as
 * rendered, and `npm start`. A form that loses one fails here, naming the form, the service
 * and the variable.
 */
import { AgbotConfig } from '@careen/agbot/src/agbot.config';
import { DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { MaintenanceSessionConfig } from '@careen/maintenance-session/src/maintenance-session.config';
import { NotifierConfig } from '@careen/notifier/src/notifier.config';
import { HUB_SERVICES, loadOrCreateNatsAuth, serviceEnv, type LocalHub } from '@careen/devstack';
import { requiredSettings } from '@careen/service';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  composeSettings,
  environmentSettings,
  manifestSettings,
  missingSettings,
  renderKustomization,
} from './support/deployment-settings';

const ROOT = join(__dirname, '..');
const OVERLAYS = ['dev', 'production'];

const REQUIRED = new Map<string, readonly string[]>([
  ['exchange', requiredSettings(ExchangeConfig)],
  ['agbot', requiredSettings(AgbotConfig)],
  ['maintenance-session', requiredSettings(MaintenanceSessionConfig)],
  ['deployment-orchestrator', requiredSettings(DeploymentOrchestratorConfig)],
  ['notifier', requiredSettings(NotifierConfig)],
]);

/** What `npm start` gives each service, from an empty inherited environment. */
async function launcherEnvironments(): Promise<Map<string, NodeJS.ProcessEnv>> {
  const state = mkdtempSync(join(tmpdir(), 'careen-settings-nats-'));
  try {
    const hub: LocalHub = {
      databaseUrl: 'postgres://careen:secret@127.0.0.1:5432/careen',
      natsUrl: 'nats://127.0.0.1:4222',
      natsAuth: await loadOrCreateNatsAuth(state),
      rootPassword: 'root-password',
      exchangeUrl: 'http://127.0.0.1:8080',
      agbotUrl: 'http://127.0.0.1:8081',
      logLevel: 'info',
    };
    return new Map(
      HUB_SERVICES.map((service) => [service.name, serviceEnv(service, service.defaultPort, hub, {})]),
    );
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** The base and overlays copied, with `file` (under deploy/kubernetes) changed by `edit`. */
function brokenManifests(file: string, edit: (text: string) => string): string {
  const root = mkdtempSync(join(tmpdir(), 'careen-settings-'));
  cpSync(join(ROOT, 'deploy', 'kubernetes'), root, { recursive: true });
  const text = readFileSync(join(root, file), 'utf8');
  const edited = edit(text);
  if (edited === text) throw new Error(`the edit changed nothing in ${file}`);
  writeFileSync(join(root, file), edited);
  return root;
}

describe('required settings in every deployment form', () => {
  it('are declared by the config classes: what a service cannot start without, and what its features need', () => {
    expect(REQUIRED.get('agbot')).toEqual(
      expect.arrayContaining([
        'CAREEN_DATABASE_URL',
        'CAREEN_NATS_URL',
        'CAREEN_EXCHANGE_URL',
        'CAREEN_AGBOT_EXCHANGE_PASSWORD',
      ]),
    );
    expect(REQUIRED.get('exchange')).toContain('CAREEN_ROOT_PASSWORD');
    expect(REQUIRED.get('exchange')).not.toContain('CAREEN_EXCHANGE_URL');
    expect(REQUIRED.get('notifier')).toEqual(
      expect.arrayContaining(['CAREEN_NOTIFIER_NATS_ACCOUNT', 'CAREEN_NOTIFIER_NATS_SIGNING_KEY']),
    );
    // A setting with a default a deployment may keep is not required.
    expect(REQUIRED.get('agbot')).not.toContain('CAREEN_AGBOT_PORT');
    expect(REQUIRED.get('agbot')).not.toContain('CAREEN_FLEETLOCK_ORG');
  });

  it('are all given by docker-compose.yml', () => {
    const compose = composeSettings(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'));
    expect(missingSettings('docker-compose.yml', compose, REQUIRED)).toEqual([]);
  });

  it.each(OVERLAYS)('are all given by the %s overlay of the Kubernetes manifests', (overlay) => {
    const manifests = manifestSettings(
      renderKustomization(join(ROOT, 'deploy', 'kubernetes', 'overlays', overlay)),
    );
    expect(missingSettings(overlay, manifests, REQUIRED)).toEqual([]);
  });

  it('are all given by npm start', async () => {
    expect(missingSettings('npm start', environmentSettings(await launcherEnvironments()), REQUIRED)).toEqual(
      [],
    );
  });

  it('a compose file without the agbot exchange password is named', () => {
    const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    const broken = text.replace(/^ {6}CAREEN_AGBOT_EXCHANGE_PASSWORD: .*\n/m, '');
    expect(broken).not.toBe(text);
    expect(missingSettings('docker-compose.yml', composeSettings(broken), REQUIRED)).toEqual([
      'docker-compose.yml: agbot is not given CAREEN_AGBOT_EXCHANGE_PASSWORD',
    ]);
  });

  it('manifests without the orchestrator exchange password, or without the shared ConfigMap entry, are named', () => {
    const copies = [
      brokenManifests('base/services/deployment-orchestrator.yaml', (text) =>
        text.replace(/ {12}- name: CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD\n( {14}.*\n)+/, ''),
      ),
      brokenManifests('base/config.yaml', (text) => text.replace(/^ {2}CAREEN_EXCHANGE_URL: .*\n/m, '')),
    ];
    try {
      const [withoutPassword, withoutExchange] = copies.map((root) =>
        missingSettings(
          'production',
          manifestSettings(renderKustomization(join(root, 'overlays', 'production'))),
          REQUIRED,
        ),
      );
      expect(withoutPassword).toEqual([
        'production: deployment-orchestrator is not given CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD',
      ]);
      expect(withoutExchange).toEqual(
        ['agbot', 'maintenance-session', 'deployment-orchestrator', 'notifier'].map(
          (service) => `production: ${service} is not given CAREEN_EXCHANGE_URL`,
        ),
      );
    } finally {
      for (const root of copies) rmSync(root, { recursive: true, force: true });
    }
  });

  it('an npm start that no longer gives the notifier its signing key is named', async () => {
    const environments = await launcherEnvironments();
    delete environments.get('notifier')!.CAREEN_NOTIFIER_NATS_SIGNING_KEY;
    expect(missingSettings('npm start', environmentSettings(environments), REQUIRED)).toEqual([
      'npm start: notifier is not given CAREEN_NOTIFIER_NATS_SIGNING_KEY',
    ]);
  });
});
