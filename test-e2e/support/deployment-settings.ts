/**
 * The variables each deployment form gives each hub service, read as the form's own tool
 * would: docker-compose.yml with its merge keys, the Kubernetes manifests as `kubectl
 * kustomize` renders an overlay (a container's env and the ConfigMaps and Secrets it takes
 * whole), and the environment `npm start` builds.
 */
import { execFileSync } from 'node:child_process';
import { parse, parseAllDocuments } from 'yaml';

/** The variables a form gives each service it runs. */
export type FormSettings = Map<string, Set<string>>;

/** A setting given in a file (`<NAME>_FILE`, a mounted secret) is the same setting. */
const settingOf = (variable: string) => variable.replace(/_FILE$/, '');

export function composeSettings(composeText: string): FormSettings {
  const compose = parse(composeText, { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown> }>;
  };
  return new Map(
    Object.entries(compose.services).map(([name, service]) => [
      name,
      new Set(Object.keys(service.environment ?? {}).map(settingOf)),
    ]),
  );
}

interface Resource {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    template?: {
      spec: {
        containers: {
          env?: { name: string }[];
          envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
        }[];
      };
    };
  };
}

/** Renders a kustomization folder with kubectl. */
export function renderKustomization(folder: string): Resource[] {
  const rendered = execFileSync('kubectl', ['kustomize', folder], {
    encoding: 'utf8',
    // kubectl warns of deprecated fields the manifests keep for older kubectl releases.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseAllDocuments(rendered).map((document) => document.toJS() as Resource);
}

/** The variables of each Deployment's first container, those it takes whole included. */
export function manifestSettings(resources: Resource[]): FormSettings {
  const keysOf = (kind: string, name: string) => {
    const source = resources.find((each) => each.kind === kind && each.metadata.name === name);
    return Object.keys({ ...source?.data, ...source?.stringData });
  };
  const settings: FormSettings = new Map();
  for (const resource of resources) {
    if (resource.kind !== 'Deployment' || !resource.spec?.template) continue;
    const container = resource.spec.template.spec.containers[0]!;
    const names = (container.env ?? []).map((entry) => entry.name);
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef) names.push(...keysOf('ConfigMap', source.configMapRef.name));
      if (source.secretRef) names.push(...keysOf('Secret', source.secretRef.name));
    }
    settings.set(resource.metadata.name, new Set(names.map(settingOf)));
  }
  return settings;
}

/** The variables set (to something) in each service's environment. */
export function environmentSettings(environments: Map<string, NodeJS.ProcessEnv>): FormSettings {
  return new Map(
    [...environments].map(([service, env]) => [
      service,
      new Set(
        Object.entries(env)
          .filter(([, value]) => value !== undefined && value !== '')
          .map(([name]) => settingOf(name)),
      ),
    ]),
  );
}

/** Each required setting a form does not give, as `<form>: <service> is not given <variable>`. */
export function missingSettings(
  form: string,
  given: FormSettings,
  required: Map<string, readonly string[]>,
): string[] {
  const problems: string[] = [];
  for (const [service, variables] of required) {
    const settings = given.get(service);
    if (!settings) {
      problems.push(`${form}: does not run ${service}`);
      continue;
    }
    for (const variable of variables)
      if (!settings.has(variable)) problems.push(`${form}: ${service} is not given ${variable}`);
  }
  return problems;
}
