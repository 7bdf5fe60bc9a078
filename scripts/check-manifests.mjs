#!/usr/bin/env node
// Checks the deployment files: docker-compose.yml and k8s/ parse as YAML, every kustomization
// names files that exist, each k8s part folder is complete, every image compose builds names an
// existing part, and compose runs the same topology as k8s (scripts/lib/manifests.mjs). With a
// kubectl whose kustomize reads these overlays, every overlay is rendered and each rendered object
// validated against the Kubernetes schemas (unknown fields included) and the deployment rules
// (probes, resources, security, Prometheus scrape annotations, spread, HPA, PDB, NetworkPolicy, a
// streaming Ingress; prod at two replicas or more, dev at one). Without one (kubectl is not a
// Debian package recent enough), the YAML documents under k8s/ are validated as they are written
// and rendering is reported skipped.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import {
  checkCompose,
  checkMetricsPort,
  checkRendered,
  findKubectl,
  parseYaml,
  renderAll,
  validateObjects,
} from './lib/manifests.mjs';
import { repoRoot } from './lib/prepare.mjs';

// K8S_DIR and COMPOSE_FILE let the manifests test check broken copies.
const k8s = process.env.K8S_DIR ?? join(repoRoot, 'k8s');
const composeFile = process.env.COMPOSE_FILE ?? join(repoRoot, 'docker-compose.yml');

const problems = [];
const problem = (file, message) => problems.push(`${relative(repoRoot, file)}: ${message}`);

const written = []; // every non-Kustomization document under k8s/, for the check without kubectl
function load(file) {
  const { values, errors } = parseYaml(readFileSync(file, 'utf8'));
  for (const error of errors) problem(file, error);
  return values;
}

function yamlFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

// --- k8s
const kustomizations = [];
for (const file of yamlFiles(k8s)) {
  for (const doc of load(file)) {
    if (doc.kind === 'Kustomization') {
      kustomizations.push(dirname(file));
      const paths = [...(doc.resources ?? []), ...(doc.patches ?? []).map((p) => p.path).filter(Boolean)];
      for (const path of paths) {
        if (!existsSync(join(dirname(file), path))) problem(file, `names ${path}, which does not exist`);
      }
    } else if (doc.kind === 'Deployment') {
      checkDeployment(file, doc);
      written.push({ label: relative(k8s, file), object: doc });
    } else if (!doc.apiVersion || !doc.kind || !doc.metadata?.name) {
      problem(file, 'a document without apiVersion, kind and metadata.name');
    } else {
      written.push({ label: relative(k8s, file), object: doc });
    }
  }
}

function checkDeployment(file, doc) {
  const pod = doc.spec?.template?.spec ?? {};
  if (pod.enableServiceLinks !== false)
    problem(file, 'enableServiceLinks must be false (service links clash with <SERVICE>_PORT)');
  if (pod.securityContext?.runAsNonRoot !== true) problem(file, 'pod securityContext.runAsNonRoot must be true');
  // Prometheus finds the pods to scrape by their annotations: /metrics on a port the pod serves,
  // apart from the API (checkMetricsPort).
  const scrape = doc.spec?.template?.metadata?.annotations ?? {};
  const served = (pod.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => String(p.containerPort)));
  if (scrape['prometheus.io/scrape'] !== 'true') problem(file, 'pod annotation prometheus.io/scrape must be "true"');
  if (scrape['prometheus.io/path'] !== '/metrics') problem(file, 'pod annotation prometheus.io/path must be /metrics');
  if (!served.includes(scrape['prometheus.io/port']))
    problem(file, `pod annotation prometheus.io/port must be a containerPort (${served.join(', ')})`);
  else for (const message of checkMetricsPort(doc)) problem(file, message);
  for (const c of pod.containers ?? []) {
    if (!c.readinessProbe?.httpGet?.path) problem(file, `${c.name}: no HTTP readinessProbe`);
    if (c.livenessProbe?.httpGet?.path !== '/health/live')
      problem(file, `${c.name}: livenessProbe must be /health/live`);
    if (!c.resources?.requests || !c.resources?.limits)
      problem(file, `${c.name}: resource requests and limits are required`);
    if (c.securityContext?.readOnlyRootFilesystem !== true)
      problem(file, `${c.name}: readOnlyRootFilesystem must be true`);
  }
}

const base = join(k8s, 'base');
if (existsSync(base)) {
  for (const name of readdirSync(base).filter((n) => statSync(join(base, n)).isDirectory())) {
    for (const part of ['kustomization.yaml', 'deployment.yaml', 'service.yaml', 'hpa.yaml', 'pdb.yaml']) {
      if (!existsSync(join(base, name, part))) problem(join(base, name), `missing ${part}`);
    }
  }
}

// --- docker-compose.yml
if (existsSync(composeFile)) {
  const [compose] = load(composeFile);
  for (const [name, service] of Object.entries(compose?.services ?? {})) {
    const service_ = service?.build?.args?.SERVICE;
    if (service?.build?.dockerfile !== 'deploy/Dockerfile') continue;
    const dir = service_ === 'gateway' ? 'gateway' : `services/${service_}`;
    if (!service_ || !existsSync(join(repoRoot, dir, 'package.json')))
      problem(composeFile, `${name}: SERVICE=${service_} names no part of the repo`);
  }
}

// --- every service with a main is deployed by both: a compose block and a k8s base folder
const composed = new Set(
  existsSync(composeFile)
    ? Object.values(load(composeFile)[0]?.services ?? {}).map((service) => service?.build?.args?.SERVICE)
    : [],
);
const servicesDir = join(repoRoot, 'services');
for (const name of existsSync(servicesDir) ? readdirSync(servicesDir) : []) {
  if (!existsSync(join(servicesDir, name, 'src', 'main.ts'))) continue;
  if (!composed.has(name)) problem(composeFile, `services/${name} has no block (build arg SERVICE: ${name})`);
  if (!existsSync(join(base, name))) problem(base, `services/${name} has no folder ${name}/`);
}

// --- compose runs the same topology as k8s
const parts = existsSync(servicesDir)
  ? readdirSync(servicesDir).filter((name) => existsSync(join(servicesDir, name, 'src', 'main.ts')))
  : [];
if (existsSync(composeFile)) {
  for (const message of checkCompose(load(composeFile)[0], parts)) problems.push(message);
}

// --- render every overlay and validate what it renders
// Replica rules by overlay name; other overlays (example) get the rules common to all.
const replicaRules = { prod: { min: 2 }, dev: { exact: 1 } };
const kubectl = findKubectl();
const overlays = join(k8s, 'overlays');
const overlayNames = existsSync(overlays)
  ? readdirSync(overlays).filter((n) => existsSync(join(overlays, n, 'kustomization.yaml')))
  : [];
for (const name of ['dev', 'prod']) {
  if (!overlayNames.includes(name)) problem(overlays, `no overlay ${name}`);
}
let validated = 0;
if (kubectl) {
  // Each kustomization must build; the overlays' renders are then the ones validated.
  const overlayDirs = overlayNames.map((name) => join(overlays, name));
  const rendered = await renderAll(kubectl, [...kustomizations, ...overlayDirs]);
  for (const dir of kustomizations) {
    const { error } = rendered.get(dir);
    if (error) problem(dir, error);
  }
  const objects = [];
  for (const [i, name] of overlayNames.entries()) {
    const { objects: overlayObjects } = rendered.get(overlayDirs[i]);
    if (!overlayObjects) continue; // reported above
    const label = `overlays/${name}`;
    problems.push(...checkRendered(label, overlayObjects, { replicas: replicaRules[name] }));
    objects.push(...overlayObjects.map((object) => ({ label, object })));
  }
  problems.push(...(await validateObjects(objects)));
  validated = objects.length;
} else {
  problems.push(...(await validateObjects(written)));
  validated = written.length;
}

if (problems.length) {
  process.stderr.write(`Deployment manifests:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
process.stderr.write(
  kubectl
    ? `Deployment manifests OK (${kustomizations.length} kustomizations rendered; overlays ${overlayNames.join(', ')}: ${validated} objects valid)\n`
    : `Deployment manifests OK (${validated} written objects valid; no kubectl with kustomize v4+, overlays not rendered)\n`,
);
