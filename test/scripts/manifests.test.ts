// The deployment manifest check (npm test's "deploy manifests" phase) run on the repository's
// files and on broken copies of them: each copy must fail with the fault named.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'scripts', 'check-manifests.mjs');
const kubectl = /Kustomize Version: v([4-9]|\d\d)/.test(
  spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).stdout ?? '',
);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wiki-manifests-'));
  cpSync(join(root, 'k8s'), join(dir, 'k8s'), { recursive: true });
  cpSync(join(root, 'docker-compose.yml'), join(dir, 'docker-compose.yml'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function check(): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    env: { ...process.env, K8S_DIR: join(dir, 'k8s'), COMPOSE_FILE: join(dir, 'docker-compose.yml') },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Replaces text in a copied file, failing the test if the text is not there. */
function edit(path: string, from: string | RegExp, to: string): void {
  const file = join(dir, path);
  const text = readFileSync(file, 'utf8');
  const changed = text.replace(from, to);
  expect(changed).not.toBe(text);
  writeFileSync(file, changed);
}

const slow = { timeout: 120_000 };

describe('deployment manifests check', () => {
  it('passes on the repository, every overlay rendered where kubectl can', slow, () => {
    const { status, output } = check();
    expect(output).toContain('Deployment manifests OK');
    expect(status).toBe(0);
    if (kubectl) expect(output).toMatch(/overlays dev, example, prod: \d+ objects valid/);
  });

  // Each run of the check renders and type-checks every overlay (seconds of CPU), so the faults
  // that cannot hide one another are made in one copy and each must be named.
  it('names every fault of a copy broken in the pods and in compose', slow, () => {
    // A misspelt field (replica for replicas), which the API server would drop.
    edit('k8s/base/workspace/deployment.yaml', /^ {2}replicas: 2$/m, '  replica: 2');
    // A field of the wrong type deep in a pod.
    edit('k8s/base/document/deployment.yaml', 'containerPort: 8082', 'containerPort: http-port');
    // Not annotated for the Prometheus scrape, or naming a port or path it does not serve.
    edit('k8s/base/mcp/deployment.yaml', /^ {8}prometheus\.io\/scrape: "true"\n/m, '');
    edit('k8s/base/export/deployment.yaml', /(name: export-worker[\s\S]*?prometheus\.io\/path: )\/metrics/, '$1/stats');
    edit('k8s/base/search/deployment.yaml', 'prometheus.io/port: "9083"', 'prometheus.io/port: "9090"');
    // /metrics scraped on the API port, served elsewhere, or the gateway's kept on loopback.
    edit('k8s/base/attachment/deployment.yaml', 'prometheus.io/port: "9085"', 'prometheus.io/port: "8085"');
    edit('k8s/base/comment/deployment.yaml', /(- name: METRICS_PORT\n\s+value: )"9084"/, '$1"9999"');
    edit('k8s/base/gateway/deployment.yaml', /\n\s+- name: METRICS_HOST\n\s+value: 0\.0\.0\.0/, '');
    // Compose losing a part, a healthcheck or NATS persistence, or publishing a metrics port.
    edit('docker-compose.yml', /^ {2}export-worker:\n/m, '  export-workers:\n');
    edit('docker-compose.yml', /(\n {2}redis:\n(?: {4}.*\n)*?) {4}healthcheck:\n/, '$1    x-no-healthcheck:\n');
    edit('docker-compose.yml', '[-js, -sd, /data,', '[-js,');
    edit('docker-compose.yml', 'ports: ["8080:8080"]', 'ports: ["8080:8080", "9080:9080"]');
    const { status, output } = check();
    expect(status).toBe(1);
    expect(output).toMatch(/Deployment\/workspace: .*'"?replica"?' does not exist/);
    expect(output).toMatch(/Deployment\/document: .*containerPort/);
    expect(output).toContain('k8s/base/mcp/deployment.yaml: pod annotation prometheus.io/scrape must be "true"');
    expect(output).toContain('k8s/base/export/deployment.yaml: pod annotation prometheus.io/path must be /metrics');
    expect(output).toContain(
      'k8s/base/search/deployment.yaml: pod annotation prometheus.io/port must be a containerPort (8083, 9083)',
    );
    expect(output).toContain(
      'k8s/base/attachment/deployment.yaml: pod annotation prometheus.io/port must be the containerPort named metrics, not 8085',
    );
    expect(output).toContain('k8s/base/comment/deployment.yaml: comment: env METRICS_PORT must be 9084');
    expect(output).toContain('k8s/base/gateway/deployment.yaml: gateway: env METRICS_HOST must be set off loopback');
    expect(output).toContain('docker-compose.yml: export-worker: missing');
    expect(output).toContain('docker-compose.yml: redis: no healthcheck');
    expect(output).toContain('docker-compose.yml: nats: JetStream (-js) must store on its volume (-sd)');
    expect(output).toContain('docker-compose.yml: gateway: must not publish its metrics port 9080');
  });

  it.skipIf(!kubectl)(
    'fails when a Service exposes the metrics port, a NetworkPolicy lets more than monitoring reach it, prod runs a part at one replica or its Ingress buffers streams',
    slow,
    () => {
      edit(
        'k8s/base/document/service.yaml',
        '      targetPort: http',
        '      targetPort: http\n    - name: metrics\n      port: 9082\n      targetPort: metrics',
      );
      // The document service's callers may reach its API port, and now its metrics port too.
      edit(
        'k8s/base/network-policies.yaml',
        '        - { protocol: TCP, port: 8082 }',
        '        - { protocol: TCP, port: 8082 }\n        - { protocol: TCP, port: 9082 }',
      );
      // The scrape policy back on the API port: no policy admits the scrape of any part.
      edit(
        'k8s/base/network-policies.yaml',
        '        - { protocol: TCP, port: metrics }',
        '        - { protocol: TCP, port: http }',
      );
      edit('k8s/overlays/prod/kustomization.yaml', /- name: comment\n {4}count: 2/, '- name: comment\n    count: 1');
      edit('k8s/overlays/prod/ingress.yaml', /proxy-buffering: "off"/, 'proxy-buffering: "on"');
      const { status, output } = check();
      expect(status).toBe(1);
      expect(output).toContain('overlays/prod: Deployment/comment: replicas must be at least 2');
      expect(output).toContain('overlays/prod: Ingress/wiki: proxy-buffering must be off');
      expect(output).toContain(
        'overlays/prod: Deployment/document: Service/document must not expose the metrics port (metrics)',
      );
      expect(output).toContain(
        'overlays/prod: Deployment/document: NetworkPolicy/document-ingress admits the metrics port of document from more than the monitoring namespace',
      );
      expect(output).toContain(
        'overlays/dev: Deployment/workspace: no NetworkPolicy admits the scrape of workspace on its metrics port',
      );
    },
  );

  it.skipIf(!kubectl)('fails without the NetworkPolicies', slow, () => {
    edit('k8s/base/kustomization.yaml', /^ {2}- network-policies\.yaml\n/m, '');
    const { status, output } = check();
    expect(status).toBe(1);
    expect(output).toContain('overlays/dev: Deployment/gateway: no NetworkPolicy restricts its ingress');
  });
});
