// The Kubernetes base (scripts/deploy/k8s/base) checked offline against the Kubernetes API's own OpenAPI schemas:
// kubernetes-models validates each object with validators generated from the official schemas (types, required
// fields, enums, formats). No cluster is needed; where `kubectl` is installed its kustomize renders the base too, and
// every rendered object is validated the same way.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { parseAllDocuments } from 'yaml';

const base = path.join(import.meta.dirname, 'k8s', 'base');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // The schema validators check the shape; the tests read into it freely.
  spec?: any;
  [k: string]: unknown;
}

/** apiVersion/kind → its schema validator. A kind not listed fails the test: nothing goes unvalidated. */
const SCHEMAS: Record<string, (o: K8sObject) => void> = {
  'v1/ConfigMap': (o) => new ConfigMap(o as never).validate(),
  'v1/Secret': (o) => new Secret(o as never).validate(),
  'v1/Service': (o) => new Service(o as never).validate(),
  'apps/v1/Deployment': (o) => new Deployment(o as never).validate(),
  'batch/v1/Job': (o) => new Job(o as never).validate(),
  'autoscaling/v2/HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o as never).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o as never).validate(),
};

function parseObjects(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((doc) => {
    assert.deepEqual(doc.errors, [], `${source}: YAML errors`);
    const o = doc.toJS() as K8sObject | null;
    return o ? [o] : [];
  });
}

function validateAll(objects: K8sObject[]): void {
  for (const o of objects) {
    const validate = SCHEMAS[`${o.apiVersion}/${o.kind}`];
    assert.ok(validate, `no schema for ${o.apiVersion} ${o.kind} (${o.metadata?.name})`);
    assert.doesNotThrow(() => validate(o), `${o.kind} ${o.metadata?.name} does not match the Kubernetes schema`);
  }
}

const kustomization = parseObjects(fs.readFileSync(path.join(base, 'kustomization.yaml'), 'utf8'), 'kustomization.yaml')[0] as unknown as {
  resources: string[];
};
const objects = kustomization.resources.flatMap((f) => parseObjects(fs.readFileSync(path.join(base, f), 'utf8'), f));
const byKind = (kind: string) => objects.filter((o) => o.kind === kind);

test('every manifest of the base is listed in its kustomization', () => {
  const files = fs.readdirSync(base).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
  assert.deepEqual([...kustomization.resources].sort(), files.sort());
});

test('every object of the base matches the Kubernetes API schema', () => {
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    'ConfigMap',
    'Deployment',
    'HorizontalPodAutoscaler',
    'Job',
    'PodDisruptionBudget',
    'Secret',
    'Service',
  ]);
  validateAll(objects);
});

test('the validator rejects what the API server would (a wrong type, a missing required field)', () => {
  const deployment = structuredClone(byKind('Deployment')[0]);
  deployment.spec.replicas = 'two';
  assert.throws(() => SCHEMAS['apps/v1/Deployment'](deployment), /replicas must be integer/);
  const hpa = structuredClone(byKind('HorizontalPodAutoscaler')[0]);
  delete hpa.spec.maxReplicas;
  assert.throws(() => SCHEMAS['autoscaling/v2/HorizontalPodAutoscaler'](hpa), /maxReplicas/);
});

test('the pieces fit: selectors, probes, settings and the migration Job', () => {
  const [deployment] = byKind('Deployment');
  const pod = deployment.spec.template;
  const podLabels: Record<string, string> = pod.metadata.labels;
  const matches = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => podLabels[k] === v);
  assert.ok(matches(deployment.spec.selector.matchLabels), 'the Deployment selects its own pods');
  assert.ok(matches(byKind('Service')[0].spec.selector), 'the Service selects the server pods');
  assert.ok(matches(byKind('PodDisruptionBudget')[0].spec.selector.matchLabels), 'the PodDisruptionBudget covers the server pods');
  const hpa = byKind('HorizontalPodAutoscaler')[0].spec;
  assert.deepEqual([hpa.scaleTargetRef.kind, hpa.scaleTargetRef.name], ['Deployment', deployment.metadata.name]);
  assert.ok(hpa.minReplicas >= 2 && byKind('PodDisruptionBudget')[0].spec.minAvailable < hpa.minReplicas, 'a drain never blocks forever');

  const [server] = pod.spec.containers;
  assert.equal(server.readinessProbe.httpGet.path, '/readyz');
  assert.equal(server.livenessProbe.httpGet.path, '/healthz');
  assert.equal(server.ports[0].containerPort, 3000);
  assert.ok(pod.spec.securityContext.runAsNonRoot);
  const refs = (c: { envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[] }) =>
    c.envFrom.map((e) => e.configMapRef?.name ?? e.secretRef?.name).sort();
  const names = [byKind('ConfigMap')[0].metadata.name, byKind('Secret')[0].metadata.name].sort();
  assert.deepEqual(refs(server), names);
  // The Secret names the operator's PostgreSQL and Redis: the store and the shared limits of every instance.
  assert.deepEqual(Object.keys(byKind('Secret')[0].stringData as object).sort(), ['DATABASE_URL', 'LAGOON_SECRETS_KEY', 'REDIS_URL']);

  const job = byKind('Job')[0].spec.template.spec.containers[0];
  assert.deepEqual(job.command, ['node', 'scripts/lagoon.ts', 'db', 'migrate']);
  assert.equal(job.image, server.image);
  assert.deepEqual(refs(job), names);
});

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
test('kubectl kustomize renders the base, and what it renders matches the schemas', {
  skip: kubectl.status !== 0 ? 'kubectl is not installed (the base is validated file by file above)' : false,
}, () => {
  const r = spawnSync('kubectl', ['kustomize', base], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const rendered = parseObjects(r.stdout, 'kubectl kustomize');
  assert.equal(rendered.length, objects.length);
  validateAll(rendered);
  for (const o of rendered) assert.equal(o.metadata.labels?.['app.kubernetes.io/part-of'], 'lagoon', `${o.kind} carries the common labels`);
  const server = rendered.find((o) => o.kind === 'Deployment')?.spec.template.spec.containers[0];
  assert.equal(server.image, 'localhost/lagoon:latest', 'the images transformer names the image');
});
