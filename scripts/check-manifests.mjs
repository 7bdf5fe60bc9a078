#!/usr/bin/env node
// Checks the deployment files that no test exercises: docker-compose.yml and k8s/ parse as
// YAML, every kustomization names files that exist, each k8s part folder is complete and its
// Deployment keeps the probes, resources and security settings, and every image compose
// builds names an existing part. With kubectl on the PATH it also renders each kustomization.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './lib/prepare.mjs';

const problems = [];
const problem = (file, message) => problems.push(`${relative(repoRoot, file)}: ${message}`);

function load(file) {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  const values = [];
  for (const doc of docs) {
    for (const error of doc.errors) problem(file, error.message.split('\n')[0]);
    const value = doc.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
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
const k8s = join(repoRoot, 'k8s');
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
    } else if (!doc.apiVersion || !doc.kind || !doc.metadata?.name) {
      problem(file, 'a document without apiVersion, kind and metadata.name');
    }
  }
}

function checkDeployment(file, doc) {
  const pod = doc.spec?.template?.spec ?? {};
  if (pod.enableServiceLinks !== false)
    problem(file, 'enableServiceLinks must be false (service links clash with <SERVICE>_PORT)');
  if (pod.securityContext?.runAsNonRoot !== true) problem(file, 'pod securityContext.runAsNonRoot must be true');
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
const composeFile = join(repoRoot, 'docker-compose.yml');
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

// --- render with kubectl when it is there (it is not required)
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
if (kubectl.status === 0) {
  for (const dir of kustomizations) {
    const rendered = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
    if (rendered.status !== 0) problem(dir, `kubectl kustomize failed: ${rendered.stderr.trim()}`);
  }
}

if (problems.length) {
  process.stderr.write(`Deployment manifests:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
process.stderr.write(
  `Deployment manifests OK (${kustomizations.length} kustomizations${kubectl.status === 0 ? ', rendered with kubectl' : ''})\n`,
);
