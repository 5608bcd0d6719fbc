#!/usr/bin/env node
/**
 * `npm run check-deploy [-- <root>]`: checks the deployment forms under <root> (the repository
 * by default), as `npm test` does:
 * - every kustomization of deploy/kubernetes (base and each overlay) renders with
 *   `kubectl kustomize`, and every resource it renders validates against the Kubernetes API
 *   schemas (kubernetes-models; the Prometheus operator's and CloudNativePG's for theirs);
 * - every container of a Deployment or StatefulSet has startup, readiness and liveness probes,
 *   CPU and memory requests and a memory limit, and runs as non-root on a read-only root
 *   filesystem;
 * - docker-compose.yml is valid (`docker-compose config`, or `docker compose config`), and it
 *   and the base manifests agree on each hub service's image, port and the names of the
 *   variables it is given.
 * Prints each problem on a line of its own and exits 1 when there is any.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const HUB_SERVICES = ['exchange', 'agbot', 'maintenance-session', 'deployment-orchestrator', 'notifier'];
/** Variables one form sets deliberately and the other leaves to the default. */
const FORM_ONLY = {
  // Pods never migrate (the Jobs do), compose services migrate as they start; the shared
  // ConfigMap names the exchange to every service, the exchange included, which has no use for it.
  kubernetes: (service) =>
    new Set(['CAREEN_MIGRATE', ...(service === 'exchange' ? ['CAREEN_EXCHANGE_URL'] : [])]),
  compose: () => new Set(),
};
/** A setting given in a file (`<NAME>_FILE`, a mounted secret) is the same setting. */
const settingOf = (variable) => variable.replace(/_FILE$/, '');
/** Where each API group's schemas come from. */
const MODELS = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg',
};

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..', '..'));
const problems = [];

/** The folders under deploy/kubernetes that hold a kustomization.yaml. */
function kustomizations() {
  const base = join(root, 'deploy', 'kubernetes');
  return readdirSync(base, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === 'kustomization.yaml')
    .map((entry) => entry.parentPath ?? entry.path)
    .sort();
}

function render(folder) {
  const result = spawnSync('kubectl', ['kustomize', folder], { encoding: 'utf8' });
  if (result.error)
    throw new Error(
      `kubectl: ${result.error.message}; install kubectl (Debian: apt-get install kubernetes-client)`,
    );
  if (result.status !== 0) {
    problems.push(`${relative(root, folder)}: kubectl kustomize failed: ${result.stderr.trim()}`);
    return [];
  }
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS())
    .filter(Boolean);
}

async function validate(where, resource) {
  const [group, version] = resource.apiVersion.includes('/')
    ? resource.apiVersion.split('/')
    : ['', resource.apiVersion];
  const module =
    group === ''
      ? `kubernetes-models/${version}`
      : `${MODELS[group] ?? 'kubernetes-models'}/${group}/${version}`;
  let Model;
  try {
    Model = (await import(module))[resource.kind];
  } catch {
    Model = undefined;
  }
  if (!Model) return problems.push(`${where}: no schema for ${resource.apiVersion} ${resource.kind}`);
  // The API server decodes a Secret's base64 ignoring line breaks, which kustomize writes into
  // long values.
  if (resource.kind === 'Secret' && resource.data)
    resource = {
      ...resource,
      data: Object.fromEntries(
        Object.entries(resource.data).map(([key, value]) => [key, value.replace(/\s/g, '')]),
      ),
    };
  try {
    new Model(resource).validate();
  } catch (error) {
    problems.push(`${where}: ${error.message.replace(/^data\//, '').replace(/\n/g, '; ')}`);
  }
}

function checkWorkload(where, resource) {
  if (resource.kind !== 'Deployment' && resource.kind !== 'StatefulSet') return;
  const pod = resource.spec?.template?.spec ?? {};
  if (pod.securityContext?.runAsNonRoot !== true)
    problems.push(`${where}: the pod does not set runAsNonRoot`);
  for (const container of pod.containers ?? []) {
    const at = `${where}: container ${container.name}`;
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
      if (!container[probe]) problems.push(`${at} has no ${probe}`);
    const { requests = {}, limits = {} } = container.resources ?? {};
    if (!requests.cpu || !requests.memory) problems.push(`${at} requests no cpu or no memory`);
    if (!limits.memory) problems.push(`${at} has no memory limit`);
    if (container.securityContext?.readOnlyRootFilesystem !== true)
      problems.push(`${at} has a writable root filesystem`);
  }
}

/** What the base manifests give each hub service: image, port and variable names. */
function kubernetesForms(resources) {
  const config = resources.find(
    (each) => each.kind === 'ConfigMap' && each.metadata.name === 'careen-config',
  );
  const forms = new Map();
  for (const deployment of resources.filter((each) => each.kind === 'Deployment')) {
    const container = deployment.spec.template.spec.containers[0];
    const fromConfig = (container.envFrom ?? []).some((each) => each.configMapRef?.name === 'careen-config')
      ? Object.keys(config?.data ?? {})
      : [];
    forms.set(deployment.metadata.name, {
      image: container.image,
      ports: (container.ports ?? []).map((port) => port.containerPort),
      variables: new Set([...(container.env ?? []).map((each) => each.name), ...fromConfig].map(settingOf)),
      env: Object.fromEntries((container.env ?? []).map((each) => [each.name, each.value])),
    });
  }
  return forms;
}

/** `docker-compose config`'s verdict on the compose file, by whichever Compose is installed. */
function checkCompose(composeFile) {
  const quiet = ['-f', composeFile, 'config', '-q'];
  for (const [command, args] of [
    ['docker-compose', quiet],
    ['docker', ['compose', ...quiet]],
  ]) {
    const result = spawnSync(command, args, { encoding: 'utf8', cwd: root });
    if (
      result.error ||
      (command === 'docker' && /unknown command|is not a docker command/.test(result.stderr))
    )
      continue;
    if (result.status !== 0)
      problems.push(`docker-compose.yml: ${command} config: ${result.stderr.trim().replace(/\n+/g, ' ')}`);
    return;
  }
  throw new Error('docker-compose: not found; install Compose (Debian: apt-get install docker-compose)');
}

function checkAgreement(resources) {
  const composeFile = join(root, 'docker-compose.yml');
  if (!existsSync(composeFile)) return problems.push('docker-compose.yml: missing');
  checkCompose(composeFile);
  let compose;
  try {
    compose = parse(readFileSync(composeFile, 'utf8'), { merge: true });
  } catch (error) {
    return problems.push(`docker-compose.yml: not YAML: ${error.message.split('\n', 1)[0]}`);
  }
  const kubernetes = kubernetesForms(resources);
  for (const service of HUB_SERVICES) {
    const inCompose = compose.services?.[service];
    const inKubernetes = kubernetes.get(service);
    if (!inCompose || !inKubernetes) {
      problems.push(`${service}: in ${inCompose ? 'docker-compose.yml' : 'the manifests'} only`);
      continue;
    }
    const where = `docker-compose.yml and deploy/kubernetes/base disagree on ${service}`;
    if (inCompose.image !== inKubernetes.image)
      problems.push(`${where}: image ${inCompose.image} vs ${inKubernetes.image}`);
    const portVariable = `CAREEN_${service.toUpperCase().replace(/-/g, '_')}_PORT`;
    const composePort = Number(inCompose.environment?.[portVariable]);
    const published = (inCompose.ports ?? []).map((each) => Number(String(each).split(':').pop()));
    const kubernetesPort = Number(inKubernetes.env[portVariable]);
    if (!(
      composePort === kubernetesPort &&
      published.includes(composePort) &&
      inKubernetes.ports.includes(kubernetesPort)
    ))
      problems.push(
        `${where}: port (${portVariable} ${composePort} published as ${published.join(',')} vs ${kubernetesPort} on container ports ${inKubernetes.ports.join(',')})`,
      );
    const composeVariables = new Set(Object.keys(inCompose.environment ?? {}).map(settingOf));
    const missing = (from, to, only) => [...from].filter((name) => !to.has(name) && !only.has(name)).sort();
    const onlyCompose = missing(composeVariables, inKubernetes.variables, FORM_ONLY.compose(service));
    const onlyKubernetes = missing(inKubernetes.variables, composeVariables, FORM_ONLY.kubernetes(service));
    if (onlyCompose.length > 0)
      problems.push(`${where}: only docker-compose.yml sets ${onlyCompose.join(', ')}`);
    if (onlyKubernetes.length > 0)
      problems.push(`${where}: only the manifests set ${onlyKubernetes.join(', ')}`);
  }
}

for (const folder of kustomizations()) {
  const resources = render(folder);
  for (const resource of resources) {
    const where = `${relative(root, folder)}: ${resource.kind}/${resource.metadata?.name}`;
    await validate(where, resource);
    checkWorkload(where, resource);
  }
  if (folder.endsWith(join('kubernetes', 'base'))) checkAgreement(resources);
}
for (const problem of problems) process.stdout.write(`${problem}\n`);
process.stdout.write(problems.length === 0 ? 'deployment forms: no problem found\n' : '');
process.exit(problems.length === 0 ? 0 : 1);
