/**
 * The deployment artefacts and their validator (scripts/validate-deploy.mjs, also run by
 * `pnpm run validate:deploy`): the real files pass, and each kind of mistake the validator exists
 * to catch is caught (a validator that accepts everything would pass the first half alone).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ROOT,
  checkComposeConfig,
  checkDockerfile,
  checkManifests,
  kustomizations,
  parseDockerfile,
  renderKustomization,
  resolveCompose,
  rootPackageManager,
  type Manifest,
} from '../scripts/validate-deploy.mjs';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const packageManager = rootPackageManager(ROOT)!;
const clone = <T>(value: T): T => structuredClone(value);

describe('deploy/Dockerfile', () => {
  const dockerfile = read('deploy/Dockerfile');

  it('has a non-root target per service and for migrations, production files only', () => {
    expect(checkDockerfile(dockerfile, { packageManager })).toEqual([]);
    const stages = parseDockerfile(dockerfile);
    const names = stages.map((stage) => stage.name);
    for (const target of ['api', 'scheduler', 'executor', 'planner', 'migrate']) expect(names).toContain(target);
    expect(stages[0]!.from).toBe(`node:${read('.nvmrc').trim().split('.')[0]}-slim`);
    const runtime = stages.find((stage) => stage.name === 'runtime')!;
    expect(runtime.instructions).toContainEqual({ op: 'USER', args: 'node' });
  });

  it.each([
    [
      'a final stage switching back to root',
      (text: string) => text.replace(/(FROM runtime AS executor\n)/, '$1USER root\n'),
      'executor runs as root',
    ],
    [
      'a missing target',
      (text: string) => text.replace('FROM runtime AS planner', 'FROM runtime AS planer'),
      'target planner missing',
    ],
    [
      'a final stage copying the build stage',
      (text: string) => text.replace('COPY --from=services-files /out/api /app', 'COPY --from=build /app /app'),
      'api copies from build',
    ],
    [
      'another start command',
      (text: string) => text.replace('services/scheduler/dist/main.js', 'services/scheduler/dist/index.js'),
      'target scheduler CMD',
    ],
    ['another pnpm', (text: string) => text.replace(packageManager, 'pnpm@9.0.0'), `must install ${packageManager}`],
    [
      'no frozen lockfile',
      (text: string) => text.replace('pnpm install --frozen-lockfile', 'pnpm install'),
      'pnpm install --frozen-lockfile',
    ],
    [
      'no healthcheck',
      (text: string) => text.replace(/HEALTHCHECK[^\n]*\\\n[^\n]*EXECUTOR_HEALTH_PORT[^\n]*\n/, ''),
      'executor has no HEALTHCHECK',
    ],
  ])('rejects %s', (_what, mutate, expected) => {
    const problems = checkDockerfile(mutate(dockerfile), { packageManager });
    expect(problems.join('\n')).toContain(expected);
  });
});

describe('docker-compose.yml', () => {
  const composeText = read('docker-compose.yml');
  const envExample = read('deploy/.env.example');
  let resolved: Manifest;
  beforeAll(() => {
    resolved = resolveCompose(ROOT);
  });

  it('is valid for docker-compose, with Redis tuned and every dependency awaited', () => {
    expect(checkComposeConfig(resolved, composeText, envExample)).toEqual([]);
    expect(resolved.services.redis.command).toEqual(expect.arrayContaining(['--hz', '100', 'noeviction']));
    expect(resolved.services.executor.depends_on.migrate.condition).toBe('service_completed_successfully');
    expect(resolved.services['stores-postgres'].profiles).toEqual(['stores']);
    expect(resolved.services['stores-redis'].profiles).toEqual(['stores']);
  });

  it.each([
    [
      'Redis at the default hz',
      (c: Manifest) =>
        (c.services.redis.command = ['redis-server', '--appendonly', 'yes', '--maxmemory-policy', 'noeviction']),
      'hz 100',
    ],
    [
      'Redis that may evict',
      (c: Manifest) => (c.services.redis.command = ['redis-server', '--hz', '100', '--appendonly', 'yes']),
      'noeviction',
    ],
    [
      'a service not waiting for migrations',
      (c: Manifest) => delete c.services.planner.depends_on.migrate,
      'planner must wait for migrate',
    ],
    [
      'a service without healthcheck',
      (c: Manifest) => delete c.services.scheduler.healthcheck,
      'scheduler has no healthcheck',
    ],
    [
      'a service that is not restarted after a crash',
      (c: Manifest) => delete c.services.executor.restart,
      'executor must have restart: unless-stopped',
    ],
    [
      'a migration that restarts',
      (c: Manifest) => (c.services.migrate.restart = 'on-failure'),
      'migrate must not restart',
    ],
    [
      'a stores profile published beyond this machine',
      (c: Manifest) => (c.services['stores-postgres'].ports = ['5432:5432']),
      'stores-postgres must publish on 127.0.0.1 only',
    ],
    [
      'a stores profile that starts the api too',
      (c: Manifest) => (c.services.api.profiles = ['stores']),
      'profile stores runs the stores only, not api',
    ],
    [
      'a stores-profile Redis that may evict',
      (c: Manifest) => (c.services['stores-redis'].command = ['redis-server', '--hz', '100', '--appendonly', 'yes']),
      'stores-redis must run with the same command as redis',
    ],
    [
      'a short executor stop grace',
      (c: Manifest) => (c.services.executor.stop_grace_period = '10s'),
      'stop_grace_period',
    ],
  ])('rejects %s', (_what, mutate, expected) => {
    const config = clone(resolved);
    mutate(config);
    expect(checkComposeConfig(config, composeText, envExample).join('\n')).toContain(expected);
  });

  it('keeps secrets out of the example file and documents every variable', () => {
    const withSecret = envExample.replace(/^KAIROS_MASTER_KEY=$/m, `KAIROS_MASTER_KEY=${'ab'.repeat(32)}`);
    expect(checkComposeConfig(resolved, composeText, withSecret).join('\n')).toContain('must be left empty');
    const undocumented = `${composeText}\n# x\nx-extra:\n  value: \${SOMETHING_NEW:-1}\n`;
    expect(checkComposeConfig(resolved, undocumented, envExample).join('\n')).toContain('SOMETHING_NEW');
  });
});

describe('deploy/k8s', () => {
  const rendered = new Map<string, Manifest[]>();
  beforeAll(() => {
    for (const { dir } of kustomizations(ROOT)) rendered.set(dir.slice(ROOT.length + 1), renderKustomization(dir));
  });
  const base = () => clone(rendered.get('deploy/k8s/base')!);
  const find = (docs: Manifest[], kind: string, name: string) =>
    docs.find((doc) => doc.kind === kind && doc.metadata.name === name)!;

  it('renders the base and both overlays into valid, complete manifests', () => {
    expect([...rendered.keys()].sort()).toEqual([
      'deploy/k8s/base',
      'deploy/k8s/overlays/dev',
      'deploy/k8s/overlays/production',
    ]);
    for (const { dir, requireTags } of kustomizations(ROOT)) {
      const docs = rendered.get(dir.slice(ROOT.length + 1))!;
      expect(checkManifests(docs, { requireTags })).toEqual([]);
      const kinds = new Set(docs.map((doc) => doc.kind));
      for (const kind of ['Deployment', 'Service', 'Ingress', 'Job', 'ConfigMap', 'PodDisruptionBudget']) {
        expect(kinds).toContain(kind);
      }
      expect(kinds).toContain('HorizontalPodAutoscaler');
      expect(kinds).toContain('ScaledObject');
      expect(kinds).not.toContain('Secret');
    }
    const production = rendered.get('deploy/k8s/overlays/production')!;
    const api = find(production, 'Deployment', 'kairos-api');
    expect(api.metadata.namespace).toBe('kairos');
    expect(api.spec.template.spec.initContainers[0].name).toBe('wait-for-migrations');
    const token = api.spec.template.spec.containers[0].env.find(
      (variable: Manifest) => variable.name === 'KAIROS_METRICS_TOKEN',
    );
    expect(token.valueFrom.secretKeyRef).toMatchObject({ name: 'kairos-secrets', optional: false });
  });

  it.each([
    [
      'a Deployment failing the Kubernetes schema',
      (docs: Manifest[]) =>
        (find(docs, 'Deployment', 'kairos-api').spec.template.spec.containers[0].ports[0].containerPort = 'http'),
      'containerPort must be integer',
    ],
    [
      'a container without readiness probe',
      (docs: Manifest[]) =>
        delete find(docs, 'Deployment', 'kairos-executor').spec.template.spec.containers[0].readinessProbe,
      'readinessProbe (httpGet) missing',
    ],
    [
      'a container without limits',
      (docs: Manifest[]) =>
        delete find(docs, 'Deployment', 'kairos-planner').spec.template.spec.containers[0].resources.limits,
      'resources.limits.cpu missing',
    ],
    [
      'a committed Secret',
      (docs: Manifest[]) =>
        docs.push({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'kairos-secrets' },
          stringData: { KAIROS_MASTER_KEY: 'x' },
        }),
      'Secrets are never committed',
    ],
    [
      'a reference to another Secret',
      (docs: Manifest[]) =>
        (find(docs, 'Job', 'kairos-migrate').spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name =
          'db-secret'),
      'Secret db-secret is not kairos-secrets',
    ],
    [
      'replicas on an autoscaled Deployment',
      (docs: Manifest[]) => (find(docs, 'Deployment', 'kairos-executor').spec.replicas = 3),
      'sets replicas although an autoscaler owns them',
    ],
    [
      'a ScaledObject with an unknown field',
      (docs: Manifest[]) => (find(docs, 'ScaledObject', 'kairos-executor').spec.maxReplicas = 5),
      'maxReplicas',
    ],
    [
      'a ScaledObject with a numeric threshold',
      (docs: Manifest[]) => (find(docs, 'ScaledObject', 'kairos-planner').spec.triggers[0].metadata.threshold = 200),
      'threshold',
    ],
    [
      'a ScaledObject targeting nothing',
      (docs: Manifest[]) => (find(docs, 'ScaledObject', 'kairos-planner').spec.scaleTargetRef.name = 'kairos-plannr'),
      'Deployment/kairos-plannr: not defined',
    ],
    [
      'an Ingress to an unknown Service',
      (docs: Manifest[]) =>
        (find(docs, 'Ingress', 'kairos-api').spec.rules[0].http.paths[0].backend.service.name = 'api'),
      'backend Service api is not defined',
    ],
    [
      'a PodDisruptionBudget selecting nothing',
      (docs: Manifest[]) =>
        (find(docs, 'PodDisruptionBudget', 'kairos-scheduler').spec.selector.matchLabels[
          'app.kubernetes.io/component'
        ] = 'sched'),
      'selector matches no Deployment',
    ],
    [
      'a grace period shorter than the executor drain',
      (docs: Manifest[]) =>
        (find(docs, 'Deployment', 'kairos-executor').spec.template.spec.terminationGracePeriodSeconds = 30),
      'terminationGracePeriodSeconds must exceed',
    ],
    [
      'a missing migration Job',
      (docs: Manifest[]) =>
        docs.splice(
          docs.findIndex((doc) => doc.kind === 'Job'),
          1,
        ),
      'Job (component migration): missing',
    ],
    [
      'an invalid HPA behaviour in a ScaledObject',
      (docs: Manifest[]) =>
        (find(
          docs,
          'ScaledObject',
          'kairos-executor',
        ).spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.policies[0].periodSeconds = '60s'),
      'behavior',
    ],
  ])('rejects %s', (_what, mutate, expected) => {
    const docs = base();
    mutate(docs);
    expect(checkManifests(docs).join('\n')).toContain(expected);
  });

  it('requires pinned image tags in overlays', () => {
    expect(checkManifests(base(), { requireTags: true }).join('\n')).toContain('has no tag');
  });
});
