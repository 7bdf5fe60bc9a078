// Validation of the Kubernetes objects that k8s/ renders to, and of docker-compose.yml (issue 19).
// Used by scripts/check-manifests.mjs (part of `npm test`) and by its test, which feeds it broken
// copies. Each object is checked twice against the Kubernetes API schemas of kubernetes-models:
// its runtime validator (types, required fields, formats) and TypeScript's excess-property check on
// the model's interface, because the validators accept unknown fields and a typo such as
// `replica: 2` is an unknown field that the API server would drop without a word.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './prepare.mjs';

const execFileAsync = promisify(execFile);

/** Parses a multi-document YAML text; syntax errors are returned beside the values. */
export function parseYaml(text) {
  const values = [];
  const errors = [];
  // merge: compose's blocks share settings through `<<: *anchor`.
  for (const doc of parseAllDocuments(text, { merge: true })) {
    for (const error of doc.errors) errors.push(error.message.split('\n')[0]);
    const value = doc.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return { values, errors };
}

/**
 * The kubectl on the PATH if its built-in kustomize can render these overlays (v4 or later reads
 * `labels` and inline `patches`; Debian's kubernetes-client 1.20 carries v2), else null.
 */
export function findKubectl() {
  const run = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (run.status !== 0) return null;
  const kustomize = /Kustomize Version: v(\d+)/.exec(run.stdout);
  return kustomize && Number(kustomize[1]) >= 4 ? 'kubectl' : null;
}

/** Renders a kustomization directory: { objects } or { error }. */
export async function render(kubectl, dir) {
  try {
    const { stdout } = await execFileAsync(kubectl, ['kustomize', dir], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const { values, errors } = parseYaml(stdout);
    return errors.length ? { error: errors.join('; ') } : { objects: values };
  } catch (error) {
    return { error: `kubectl kustomize failed: ${String(error.stderr ?? error.message).trim()}` };
  }
}

/**
 * Renders every directory once, a few kubectl processes at a time (each waits mostly on its own
 * start-up): a Map from directory to what `render` answers.
 */
export async function renderAll(kubectl, dirs, concurrency = Math.max(2, availableParallelism())) {
  const results = new Map();
  const queue = [...new Set(dirs)];
  const worker = async () => {
    for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) results.set(dir, await render(kubectl, dir));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  return results;
}

const describe = (o) => `${o?.kind ?? '?'}/${o?.metadata?.name ?? '?'}`;

/** The kubernetes-models module of an object's apiVersion and kind (core v1 sits at the top). */
function modelPath(o) {
  if (typeof o?.apiVersion !== 'string' || typeof o?.kind !== 'string') return null;
  if (!/^[a-zA-Z0-9.]+(\/[a-z0-9]+)?$/.test(o.apiVersion) || !/^[A-Za-z]+$/.test(o.kind)) return null;
  return `kubernetes-models/${o.apiVersion}/${o.kind}`;
}

const modelExists = (path) => existsSync(join(repoRoot, 'node_modules', `${path}.js`));

/**
 * Validates objects against the Kubernetes schemas. `objects` is [{ label, object }]; returns
 * problems as "label: Kind/name: message".
 */
export async function validateObjects(objects) {
  const problems = [];
  const typed = [];
  for (const { label, object } of objects) {
    const path = modelPath(object);
    if (!path || !modelExists(path)) {
      problems.push(`${label}: ${describe(object)}: no Kubernetes schema for ${object?.apiVersion} ${object?.kind}`);
      continue;
    }
    const module = await import(path);
    const Model = module[object.kind];
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(
        `${label}: ${describe(object)}: ${String(error.message ?? error)
          .split('\n')
          .slice(0, 3)
          .join(' ')}`,
      );
    }
    typed.push({ label, object, path });
  }
  problems.push(...(await typeCheck(typed)));
  return problems;
}

/**
 * One TypeScript program, one line per object (`const oN: IKind = <json>`), so that each
 * diagnostic's line names its object. A fresh object literal gets TypeScript's excess-property
 * check at every depth, which is the unknown-field check the validators lack.
 */
async function typeCheck(typed) {
  if (!typed.length) return [];
  const { default: ts } = await import('typescript');
  const dir = join(repoRoot, 'node_modules', '.cache', 'wiki-manifests');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `objects-${process.pid}-${Date.now()}.ts`);
  const lines = typed.flatMap(({ object, path }, i) => [
    `import type { I${object.kind} as T${i} } from '${path}';`,
    `export const o${i}: T${i} = ${JSON.stringify(object)};`,
  ]);
  writeFileSync(file, lines.join('\n'));
  try {
    const program = ts.createProgram([file], {
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      types: [],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
      const entry = typed[Math.floor(line / 2)];
      const where = entry ? `${entry.label}: ${describe(entry.object)}` : 'type check';
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 400)}`;
    });
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * `/metrics` apart from the API (ARCHITECTURE 5.14), as a Deployment declares it: the scrape
 * annotation names a container port called `metrics` that is not the port the probes use, the
 * container serves it (METRICS_PORT), and the gateway, whose metrics stay on loopback by default,
 * binds them where Prometheus reaches them (METRICS_HOST).
 */
export function checkMetricsPort(deployment) {
  const problems = [];
  const pod = deployment.spec?.template?.spec ?? {};
  const annotated = String(deployment.spec?.template?.metadata?.annotations?.['prometheus.io/port'] ?? '');
  const declaring = (pod.containers ?? []).filter((c) =>
    (c.ports ?? []).some((p) => p.name === 'metrics' && String(p.containerPort) === annotated),
  );
  if (!declaring.length) {
    problems.push(
      `pod annotation prometheus.io/port must be the containerPort named metrics, not ${annotated || 'unset'}`,
    );
  }
  for (const c of declaring) {
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
    const probed = [c.readinessProbe, c.livenessProbe, c.startupProbe].map((probe) => probe?.httpGet?.port);
    const apiPort = (c.ports ?? []).find((p) => p.name === 'http')?.containerPort;
    if (String(apiPort) === annotated || probed.some((port) => port === 'metrics' || String(port) === annotated)) {
      problems.push(`${c.name}: the metrics port must not be the API's (http) nor the probes'`);
    }
    if (String(env.METRICS_PORT) !== annotated) {
      problems.push(`${c.name}: env METRICS_PORT must be ${annotated}, the port the annotation names`);
    }
    if (
      deployment.metadata?.name === 'gateway' &&
      (!env.METRICS_HOST || /^(127\.|::1$|localhost$)/.test(env.METRICS_HOST))
    ) {
      problems.push(
        `${c.name}: env METRICS_HOST must be set off loopback (the gateway's default), or Prometheus cannot scrape it`,
      );
    }
  }
  return problems;
}

/** The port numbers and names a NetworkPolicy ingress rule admits ([] when it names none: every port). */
const admittedPorts = (rule) => (rule.ports ?? []).map((p) => String(p.port));

/**
 * Who reaches a Deployment's metrics port: no Service exposes it, some NetworkPolicy admits it,
 * and every rule that admits it (naming it, or naming no port) comes from a namespace (the
 * monitoring one), never from pods, addresses or everyone.
 */
function metricsReach(deployment, services, policies, selects) {
  const problems = [];
  const pod = deployment.spec?.template?.spec ?? {};
  const annotated = String(deployment.spec?.template?.metadata?.annotations?.['prometheus.io/port'] ?? '');
  const metrics = new Set(['metrics', annotated]);
  const podLabels = deployment.spec?.template?.metadata?.labels ?? {};
  for (const service of services) {
    const selector = service.spec?.selector ?? {};
    if (!Object.keys(selector).length || !Object.entries(selector).every(([k, v]) => podLabels[k] === v)) continue;
    for (const port of service.spec?.ports ?? []) {
      if (metrics.has(String(port.targetPort ?? port.port))) {
        problems.push(
          `Service/${service.metadata?.name} must not expose the metrics port (${port.targetPort ?? port.port})`,
        );
      }
    }
  }
  let admitted = false;
  for (const policy of policies) {
    if (!selects(policy.spec?.podSelector) || !policy.spec?.policyTypes?.includes('Ingress')) continue;
    for (const rule of policy.spec?.ingress ?? []) {
      const ports = admittedPorts(rule);
      if (ports.length && !ports.some((p) => metrics.has(p))) continue;
      const peers = rule.from ?? [];
      const fromNamespaceOnly =
        peers.length > 0 &&
        peers.every((peer) => peer.namespaceSelector?.matchLabels && !peer.podSelector && !peer.ipBlock);
      if (!fromNamespaceOnly) {
        problems.push(
          `NetworkPolicy/${policy.metadata?.name} admits the metrics port of ${deployment.metadata?.name} from more than the monitoring namespace`,
        );
      } else if (ports.length) admitted = true;
    }
  }
  if (!admitted && (pod.containers ?? []).length) {
    problems.push(`no NetworkPolicy admits the scrape of ${deployment.metadata?.name} on its metrics port`);
  }
  return problems;
}

/**
 * What every rendered overlay must hold beyond the schemas: each Deployment with probes,
 * resources, a non-root read-only security context and a topology spread; an HPA and a PDB for
 * each; a NetworkPolicy that selects its pods; an Ingress for the gateway that streams.
 * `replicas` (optional) is { min } or { exact } for the Deployments and HPAs.
 */
export function checkRendered(label, objects, { replicas } = {}) {
  const problems = [];
  const problem = (o, message) => problems.push(`${label}: ${describe(o)}: ${message}`);
  const of = (kind) => objects.filter((o) => o.kind === kind);
  const deployments = of('Deployment');
  if (!deployments.length) problems.push(`${label}: no Deployment`);
  const policies = of('NetworkPolicy');
  for (const d of deployments) {
    const name = d.metadata.name;
    const pod = d.spec?.template?.spec ?? {};
    const podLabels = d.spec?.template?.metadata?.labels ?? {};
    if (pod.enableServiceLinks !== false) problem(d, 'enableServiceLinks must be false');
    if (pod.automountServiceAccountToken !== false) problem(d, 'automountServiceAccountToken must be false');
    if (pod.securityContext?.runAsNonRoot !== true) problem(d, 'pod securityContext.runAsNonRoot must be true');
    const spread = pod.topologySpreadConstraints ?? [];
    for (const key of ['kubernetes.io/hostname', 'topology.kubernetes.io/zone']) {
      if (!spread.some((c) => c.topologyKey === key)) problem(d, `no topology spread over ${key}`);
    }
    for (const c of pod.containers ?? []) {
      if (!c.readinessProbe?.httpGet?.path) problem(d, `${c.name}: no HTTP readinessProbe`);
      if (c.livenessProbe?.httpGet?.path !== '/health/live')
        problem(d, `${c.name}: livenessProbe must be /health/live`);
      if (!c.startupProbe) problem(d, `${c.name}: no startupProbe`);
      for (const kind of ['requests', 'limits']) {
        if (!c.resources?.[kind]?.cpu || !c.resources?.[kind]?.memory)
          problem(d, `${c.name}: no ${kind} cpu and memory`);
      }
      const sc = c.securityContext ?? {};
      if (sc.readOnlyRootFilesystem !== true) problem(d, `${c.name}: readOnlyRootFilesystem must be true`);
      if (sc.allowPrivilegeEscalation !== false) problem(d, `${c.name}: allowPrivilegeEscalation must be false`);
      if (!sc.capabilities?.drop?.includes('ALL')) problem(d, `${c.name}: capabilities must drop ALL`);
    }
    const hpa = of('HorizontalPodAutoscaler').find(
      (h) => h.spec?.scaleTargetRef?.kind === 'Deployment' && h.spec.scaleTargetRef.name === name,
    );
    if (!hpa) problem(d, 'no HorizontalPodAutoscaler');
    const selects = (selector) =>
      Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => podLabels[k] === v) &&
      (selector?.matchExpressions ?? []).every((e) => e.operator === 'In' && e.values.includes(podLabels[e.key]));
    if (!of('PodDisruptionBudget').some((p) => selects(p.spec?.selector))) problem(d, 'no PodDisruptionBudget');
    if (!policies.some((p) => selects(p.spec?.podSelector) && p.spec?.policyTypes?.includes('Ingress')))
      problem(d, 'no NetworkPolicy restricts its ingress');
    if (!policies.some((p) => selects(p.spec?.podSelector) && p.spec?.policyTypes?.includes('Egress')))
      problem(d, 'no NetworkPolicy restricts its egress');
    for (const message of [...checkMetricsPort(d), ...metricsReach(d, of('Service'), policies, selects)])
      problem(d, message);
    if (replicas?.min !== undefined) {
      if (!(d.spec?.replicas >= replicas.min)) problem(d, `replicas must be at least ${replicas.min}`);
      if (hpa && !(hpa.spec?.minReplicas >= replicas.min)) problem(hpa, `minReplicas must be at least ${replicas.min}`);
    }
    if (replicas?.exact !== undefined && d.spec?.replicas !== replicas.exact)
      problem(d, `replicas must be ${replicas.exact}`);
  }
  const ingresses = of('Ingress');
  const toGateway = ingresses.filter((i) =>
    (i.spec?.rules ?? []).some((r) => (r.http?.paths ?? []).some((p) => p.backend?.service?.name === 'gateway')),
  );
  if (!toGateway.length) problems.push(`${label}: no Ingress routes to the gateway`);
  for (const i of ingresses) {
    const a = i.metadata?.annotations ?? {};
    const backends = (i.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((p) => p.backend?.service?.name));
    if (backends.some((b) => b !== 'gateway')) problem(i, 'only the gateway may be exposed');
    if (a['nginx.ingress.kubernetes.io/proxy-buffering'] !== 'off')
      problem(i, 'proxy-buffering must be off (Server-Sent Events)');
    for (const timeout of ['proxy-read-timeout', 'proxy-send-timeout']) {
      if (!(Number(a[`nginx.ingress.kubernetes.io/${timeout}`]) >= 3600))
        problem(i, `${timeout} must be at least 3600 (long-lived WebSockets and streams)`);
    }
  }
  return problems;
}

/**
 * docker-compose.yml runs the same topology: every part (a block per service with a main, the
 * export workers apart), the stores with healthchecks and volumes, NATS with JetStream on a
 * volume, Elasticsearch under a profile, and each part waiting for healthy stores.
 */
export function checkCompose(compose, partNames) {
  const problems = [];
  const services = compose?.services ?? {};
  const problem = (name, message) => problems.push(`docker-compose.yml: ${name}: ${message}`);
  for (const name of [...partNames, 'export-worker', 'gateway']) {
    if (!services[name]) problem(name, 'missing');
  }
  const stores = {
    postgres: '/var/lib/postgresql/data',
    nats: '/data',
    redis: null,
    minio: '/data',
    elasticsearch: '/usr/share/elasticsearch/data',
  };
  for (const [name, dataDir] of Object.entries(stores)) {
    const s = services[name];
    if (!s) {
      problem(name, 'missing');
      continue;
    }
    if (!s.healthcheck?.test) problem(name, 'no healthcheck');
    if (dataDir && !(s.volumes ?? []).some((v) => String(v).split(':')[1] === dataDir))
      problem(name, `no volume on ${dataDir}`);
  }
  const nats = (services.nats?.command ?? []).map(String);
  if (!nats.includes('-js') || !nats.includes('-sd')) problem('nats', 'JetStream (-js) must store on its volume (-sd)');
  if (!(services.elasticsearch?.profiles ?? []).length) problem('elasticsearch', 'must sit under a profile');
  for (const name of [...partNames, 'export-worker']) {
    for (const store of ['postgres', 'nats', 'redis']) {
      if (services[name] && services[name].depends_on?.[store]?.condition !== 'service_healthy')
        problem(name, `must wait for a healthy ${store}`);
    }
  }
  // /metrics is served apart from the API (ARCHITECTURE 5.14) and never published to the host.
  for (const [name, block] of Object.entries(services)) {
    const metricsPort = composeMetricsPort(block);
    if (metricsPort === undefined) continue;
    for (const mapping of block.ports ?? []) {
      const target = typeof mapping === 'object' ? mapping.target : String(mapping).split('/')[0].split(':').at(-1);
      if (Number(target) === metricsPort) problem(name, `must not publish its metrics port ${metricsPort}`);
    }
  }
  // The parts' own healthchecks come from the image (deploy/Dockerfile's HEALTHCHECK).
  for (const name of [...partNames, 'redis']) {
    if (services.gateway && services.gateway.depends_on?.[name]?.condition !== 'service_healthy')
      problem('gateway', `must wait for a healthy ${name}`);
  }
  return problems;
}

/**
 * Where a compose part built from deploy/Dockerfile serves /metrics: METRICS_PORT, else its own
 * port + 1000 (PORT for the gateway, <SERVICE>_PORT, else the port its peers reach it on, <SERVICE>_URL).
 */
function composeMetricsPort(block) {
  const service = block?.build?.args?.SERVICE;
  if (!service) return undefined;
  const env = block.environment ?? {};
  if (env.METRICS_PORT !== undefined) return Number(env.METRICS_PORT);
  const upper = service.toUpperCase();
  const own = service === 'gateway' ? (env.PORT ?? 8080) : (env[`${upper}_PORT`] ?? urlPort(env[`${upper}_URL`]));
  return own === undefined ? undefined : Number(own) + 1000;
}

function urlPort(value) {
  try {
    return new URL(String(value)).port || undefined;
  } catch {
    return undefined;
  }
}

/** Reads a YAML file of one document. */
export function readYaml(file) {
  return parseYaml(readFileSync(file, 'utf8'));
}
