#!/usr/bin/env node
/**
 * `pnpm run validate:deploy`: checks every deployment artefact offline (no Docker engine, no cluster).
 *  1. docker-compose.yml: Debian's docker-compose (1.29) `config -q` with placeholder secrets, a
 *     run WITHOUT them that must fail (nothing secret is committed), then the resolved file's
 *     semantics (Redis hz/noeviction/AOF, healthchecks, depends_on conditions, deploy/.env.example).
 *  2. deploy/k8s: the base and each overlay rendered by kustomize (`kustomize build`, else
 *     `kubectl kustomize`); every document validated against the Kubernetes schemas with
 *     kubernetes-models, KEDA ScaledObjects (a CRD) with a zod schema, then cross-references
 *     (ConfigMap/Secret/Service/target names, selectors, probes, resources, grace periods).
 *  3. deploy/Dockerfile: parsed into stages; targets, non-root users, commands, production-only copies.
 * A missing tool is a failure, never a skip. The checks are exported for test/deploy.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVICES = ['api', 'scheduler', 'executor', 'planner'];
/** The one Secret the manifests reference; created by the operator, never part of the repository. */
export const EXTERNAL_SECRET = 'kairos-secrets';
export const EXTERNAL_TLS_SECRET = 'kairos-tls';

// zod is a dependency of the workspace packages, not of the root: resolve it from one of them.
const zodPath = createRequire(join(ROOT, 'packages/runtime/package.json')).resolve('zod');
const { z } = await import(pathToFileURL(zodPath).href);

// ---------------------------------------------------------------------------------------------
// Kubernetes documents
// ---------------------------------------------------------------------------------------------

const MODELS = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'networking.k8s.io/v1/Ingress': Ingress,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

const quantityString = z.string().regex(/^\d+(\.\d+)?$/, 'must be a number in a string, e.g. "70"');
const dnsName = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 name');
const prometheusTrigger = z
  .object({
    type: z.literal('prometheus'),
    name: z.string().optional(),
    metricType: z.enum(['AverageValue', 'Value']).optional(),
    authenticationRef: z.object({ name: dnsName, kind: z.string().optional() }).strict().optional(),
    metadata: z
      .object({
        serverAddress: z.url(),
        query: z.string().min(1),
        threshold: quantityString,
        activationThreshold: quantityString.optional(),
        namespace: z.string().optional(),
        ignoreNullValues: z.enum(['true', 'false']).optional(),
        unsafeSsl: z.enum(['true', 'false']).optional(),
        authModes: z.string().optional(),
      })
      .strict(),
  })
  .strict();
const metricsApiTrigger = z
  .object({
    type: z.literal('metrics-api'),
    name: z.string().optional(),
    metricType: z.enum(['AverageValue', 'Value']).optional(),
    authenticationRef: z.object({ name: dnsName, kind: z.string().optional() }).strict().optional(),
    metadata: z
      .object({
        url: z.url(),
        valueLocation: z.string().min(1),
        targetValue: quantityString,
        activationTargetValue: quantityString.optional(),
        format: z.enum(['json', 'xml', 'yaml', 'prometheus']).optional(),
        authMode: z.string().optional(),
      })
      .strict(),
  })
  .strict();

/** The KEDA ScaledObject fields we use (keda.sh/v1alpha1); unknown fields are refused. */
export const scaledObjectSchema = z
  .object({
    apiVersion: z.literal('keda.sh/v1alpha1'),
    kind: z.literal('ScaledObject'),
    metadata: z
      .object({
        name: dnsName,
        namespace: dnsName.optional(),
        labels: z.record(z.string(), z.string()).optional(),
        annotations: z.record(z.string(), z.string()).optional(),
      })
      .strict(),
    spec: z
      .object({
        scaleTargetRef: z
          .object({
            name: dnsName,
            kind: z.string().optional(),
            apiVersion: z.string().optional(),
            envSourceContainerName: z.string().optional(),
          })
          .strict(),
        pollingInterval: z.number().int().positive().optional(),
        cooldownPeriod: z.number().int().nonnegative().optional(),
        initialCooldownPeriod: z.number().int().nonnegative().optional(),
        idleReplicaCount: z.number().int().nonnegative().optional(),
        minReplicaCount: z.number().int().nonnegative().optional(),
        maxReplicaCount: z.number().int().positive().optional(),
        fallback: z
          .object({
            failureThreshold: z.number().int().positive(),
            replicas: z.number().int().nonnegative(),
            behavior: z
              .enum(['static', 'currentReplicas', 'currentReplicasIfHigher', 'currentReplicasIfLower'])
              .optional(),
          })
          .strict()
          .optional(),
        advanced: z
          .object({
            restoreToOriginalReplicaCount: z.boolean().optional(),
            horizontalPodAutoscalerConfig: z
              .object({ name: z.string().optional(), behavior: z.record(z.string(), z.unknown()).optional() })
              .strict()
              .optional(),
          })
          .strict()
          .optional(),
        triggers: z.array(z.discriminatedUnion('type', [prometheusTrigger, metricsApiTrigger])).min(1),
      })
      .strict()
      .refine((spec) => (spec.minReplicaCount ?? 0) <= (spec.maxReplicaCount ?? 100), {
        message: 'minReplicaCount exceeds maxReplicaCount',
      }),
  })
  .strict();

const nameOf = (doc) => `${doc?.kind ?? '?'}/${doc?.metadata?.name ?? '?'}`;

/** Schema validation of one document: kubernetes-models for core kinds, zod for ScaledObject. */
export function validateDocument(doc) {
  if (!doc || typeof doc !== 'object') return ['an empty or non-object document'];
  if (doc.kind === 'Secret')
    return [`${nameOf(doc)}: Secrets are never committed (create ${EXTERNAL_SECRET} in the cluster)`];
  if (doc.kind === 'ScaledObject') {
    const parsed = scaledObjectSchema.safeParse(doc);
    if (!parsed.success) {
      return parsed.error.issues.map((issue) => `${nameOf(doc)}: ${issue.path.join('.')}: ${issue.message}`);
    }
    const behavior = doc.spec.advanced?.horizontalPodAutoscalerConfig?.behavior;
    if (behavior) {
      try {
        new HorizontalPodAutoscalerBehavior(behavior).validate();
      } catch (error) {
        return [`${nameOf(doc)}: advanced.horizontalPodAutoscalerConfig.behavior: ${error.message}`];
      }
    }
    return [];
  }
  const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
  if (!Model) return [`${nameOf(doc)}: no schema for ${doc.apiVersion} ${doc.kind} (add it to validate-deploy.mjs)`];
  try {
    new Model(doc).validate();
    return [];
  } catch (error) {
    return [`${nameOf(doc)}: ${error.message}`];
  }
}

const matches = (selector, labels) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels?.[key] === value) &&
  Object.keys(selector ?? {}).length > 0;

function podTemplate(doc) {
  return doc.kind === 'Deployment' || doc.kind === 'Job' ? doc.spec?.template : undefined;
}

/** Names a pod spec refers to: ConfigMaps and Secrets (envFrom, env valueFrom, volumes). */
function referencesOf(podSpec) {
  const configMaps = [];
  const secrets = [];
  for (const container of [...(podSpec?.containers ?? []), ...(podSpec?.initContainers ?? [])]) {
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef) configMaps.push(source.configMapRef.name);
      if (source.secretRef) secrets.push(source.secretRef.name);
    }
    for (const variable of container.env ?? []) {
      if (variable.valueFrom?.configMapKeyRef) configMaps.push(variable.valueFrom.configMapKeyRef.name);
      if (variable.valueFrom?.secretKeyRef) secrets.push(variable.valueFrom.secretKeyRef.name);
    }
  }
  for (const volume of podSpec?.volumes ?? []) {
    if (volume.configMap) configMaps.push(volume.configMap.name);
    if (volume.secret) secrets.push(volume.secret.secretName);
  }
  return { configMaps, secrets };
}

function checkContainer(where, container, { needsProbes }) {
  const problems = [];
  for (const kind of ['requests', 'limits']) {
    for (const resource of ['cpu', 'memory']) {
      if (!container.resources?.[kind]?.[resource]) problems.push(`${where}: resources.${kind}.${resource} missing`);
    }
  }
  if (container.securityContext?.allowPrivilegeEscalation !== false) {
    problems.push(`${where}: securityContext.allowPrivilegeEscalation must be false`);
  }
  if (needsProbes) {
    for (const probe of ['readinessProbe', 'livenessProbe']) {
      if (!container[probe]?.httpGet) problems.push(`${where}: ${probe} (httpGet) missing`);
    }
    const portNames = new Set((container.ports ?? []).map((port) => port.name));
    for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
      const port = container[probe]?.httpGet?.port;
      if (typeof port === 'string' && !portNames.has(port))
        problems.push(`${where}: ${probe} names unknown port ${port}`);
    }
  }
  return problems;
}

/**
 * Everything a set of rendered documents must satisfy beyond the schemas: the services and their
 * companions exist, names resolve, selectors select, autoscaled Deployments leave `replicas` alone.
 * `requireTags`: every image pinned (overlays; the base leaves tags to them).
 */
export function checkManifests(docs, { requireTags = false } = {}) {
  const problems = docs.flatMap((doc) => validateDocument(doc));
  const byKind = (kind) => docs.filter((doc) => doc?.kind === kind);
  const names = (kind) => new Set(byKind(kind).map((doc) => doc.metadata?.name));
  const deployments = byKind('Deployment');
  const configMaps = names('ConfigMap');

  const seen = new Set();
  for (const doc of docs) {
    const key = `${doc?.kind}/${doc?.metadata?.namespace ?? ''}/${doc?.metadata?.name}`;
    if (seen.has(key)) problems.push(`${nameOf(doc)}: defined twice`);
    seen.add(key);
  }

  for (const service of SERVICES) {
    const deployment = deployments.find((doc) => doc.metadata?.name === `kairos-${service}`);
    if (!deployment) {
      problems.push(`Deployment/kairos-${service}: missing`);
      continue;
    }
    const covered = byKind('PodDisruptionBudget').some((pdb) =>
      matches(pdb.spec?.selector?.matchLabels, deployment.spec?.template?.metadata?.labels),
    );
    if (!covered) problems.push(`Deployment/kairos-${service}: no PodDisruptionBudget selects its pods`);
  }
  if (!byKind('Job').some((job) => job.metadata?.labels?.['app.kubernetes.io/component'] === 'migration')) {
    problems.push('Job (component migration): missing');
  }
  if (!names('HorizontalPodAutoscaler').has('kairos-api')) problems.push('HorizontalPodAutoscaler/kairos-api: missing');
  for (const pool of ['executor', 'planner']) {
    if (!byKind('ScaledObject').some((doc) => doc.spec?.scaleTargetRef?.name === `kairos-${pool}`)) {
      problems.push(`ScaledObject for kairos-${pool}: missing`);
    }
  }
  if (!byKind('Ingress').some((doc) => JSON.stringify(doc.spec).includes('"kairos-api"'))) {
    problems.push('Ingress to kairos-api: missing');
  }

  for (const doc of [...deployments, ...byKind('Job')]) {
    const template = podTemplate(doc);
    const spec = template?.spec;
    if (doc.kind === 'Deployment' && !matches(doc.spec?.selector?.matchLabels, template?.metadata?.labels)) {
      problems.push(`${nameOf(doc)}: selector does not match the pod template's labels`);
    }
    if (spec?.securityContext?.runAsNonRoot !== true) problems.push(`${nameOf(doc)}: pod must set runAsNonRoot: true`);
    for (const container of spec?.containers ?? []) {
      problems.push(
        ...checkContainer(`${nameOf(doc)} container ${container.name}`, container, {
          needsProbes: doc.kind === 'Deployment',
        }),
      );
    }
    for (const container of spec?.initContainers ?? []) {
      problems.push(
        ...checkContainer(`${nameOf(doc)} init container ${container.name}`, container, { needsProbes: false }),
      );
    }
    for (const container of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
      if (requireTags && !/:[^/]+$/.test(container.image ?? '')) {
        problems.push(`${nameOf(doc)} container ${container.name}: image ${container.image} has no tag`);
      }
    }
    const refs = referencesOf(spec);
    for (const name of refs.configMaps) {
      if (!configMaps.has(name)) problems.push(`${nameOf(doc)}: ConfigMap ${name} is not defined`);
    }
    for (const name of refs.secrets) {
      if (name !== EXTERNAL_SECRET) problems.push(`${nameOf(doc)}: Secret ${name} is not ${EXTERNAL_SECRET}`);
    }
  }

  const autoscaled = new Set([
    ...byKind('HorizontalPodAutoscaler').map((doc) => doc.spec?.scaleTargetRef?.name),
    ...byKind('ScaledObject').map((doc) => doc.spec?.scaleTargetRef?.name),
  ]);
  for (const name of autoscaled) {
    const target = deployments.find((doc) => doc.metadata?.name === name);
    if (!target) problems.push(`autoscaler target Deployment/${name}: not defined`);
    else if (target.spec?.replicas !== undefined) {
      problems.push(`${nameOf(target)}: sets replicas although an autoscaler owns them (every apply would reset them)`);
    }
  }

  for (const service of byKind('Service')) {
    const selected = deployments.filter((doc) => matches(service.spec?.selector, doc.spec?.template?.metadata?.labels));
    if (selected.length === 0) problems.push(`${nameOf(service)}: selector matches no Deployment`);
    for (const port of service.spec?.ports ?? []) {
      if (typeof port.targetPort !== 'string') continue;
      const named = selected.some((doc) =>
        doc.spec.template.spec.containers.some((container) =>
          (container.ports ?? []).some((containerPort) => containerPort.name === port.targetPort),
        ),
      );
      if (!named) problems.push(`${nameOf(service)}: targetPort ${port.targetPort} is no container port`);
    }
  }
  for (const ingress of byKind('Ingress')) {
    for (const rule of ingress.spec?.rules ?? []) {
      for (const path of rule.http?.paths ?? []) {
        const backend = path.backend?.service;
        const service = byKind('Service').find((doc) => doc.metadata?.name === backend?.name);
        if (!service) problems.push(`${nameOf(ingress)}: backend Service ${backend?.name} is not defined`);
        else if (backend.port?.name && !service.spec.ports.some((port) => port.name === backend.port.name)) {
          problems.push(`${nameOf(ingress)}: Service ${backend.name} has no port ${backend.port.name}`);
        }
      }
    }
    for (const tls of ingress.spec?.tls ?? []) {
      if (tls.secretName && tls.secretName !== EXTERNAL_TLS_SECRET) {
        problems.push(`${nameOf(ingress)}: TLS Secret ${tls.secretName} is not ${EXTERNAL_TLS_SECRET}`);
      }
    }
  }
  for (const pdb of byKind('PodDisruptionBudget')) {
    const selected = deployments.some((doc) =>
      matches(pdb.spec?.selector?.matchLabels, doc.spec?.template?.metadata?.labels),
    );
    if (!selected) problems.push(`${nameOf(pdb)}: selector matches no Deployment`);
  }

  // The executor drains for EXECUTOR_SHUTDOWN_TIMEOUT_MS after SIGTERM: the kubelet must wait longer.
  const executor = deployments.find((doc) => doc.metadata?.name === 'kairos-executor');
  const config = byKind('ConfigMap').find((doc) => doc.data?.EXECUTOR_SHUTDOWN_TIMEOUT_MS);
  if (executor && config) {
    const graceMs = (executor.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    const drainMs = Number(config.data.EXECUTOR_SHUTDOWN_TIMEOUT_MS);
    if (!(graceMs > drainMs + 5000)) {
      problems.push(
        `${nameOf(executor)}: terminationGracePeriodSeconds must exceed EXECUTOR_SHUTDOWN_TIMEOUT_MS + 5 s`,
      );
    }
  }
  return problems;
}

export function parseYamlDocuments(text) {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(doc.errors.map((error) => error.message).join('; '));
      return doc.toJS();
    })
    .filter((doc) => doc !== null);
}

function run(command, args, options = {}) {
  return spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
}

const hasCommand = (command) => run('sh', ['-c', `command -v ${command}`]).status === 0;

/** Renders a kustomization with the kustomize binary, else kubectl's built-in kustomize. */
export function renderKustomization(dir) {
  const [command, args] = hasCommand('kustomize')
    ? ['kustomize', ['build', dir]]
    : hasCommand('kubectl')
      ? ['kubectl', ['kustomize', dir]]
      : [null, null];
  if (!command) {
    throw new Error('no kustomize renderer: install kustomize or kubectl (apt-get install -y kubectl)');
  }
  const result = run(command, args);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return parseYamlDocuments(result.stdout);
}

export function kustomizations(root = ROOT) {
  const overlays = join(root, 'deploy/k8s/overlays');
  return [
    { dir: join(root, 'deploy/k8s/base'), requireTags: false },
    ...readdirSync(overlays).map((name) => ({ dir: join(overlays, name), requireTags: true })),
  ];
}

// ---------------------------------------------------------------------------------------------
// docker-compose.yml
// ---------------------------------------------------------------------------------------------

/** Placeholder values for the required variables: validation only, never used anywhere. */
const COMPOSE_PLACEHOLDERS = {
  POSTGRES_PASSWORD: 'validation-only',
  KAIROS_MASTER_KEY: '0'.repeat(64),
  KAIROS_METRICS_TOKEN: 'validation-only-token',
};

function composeEnv(extra) {
  const env = { ...process.env, ...extra };
  for (const name of Object.keys(COMPOSE_PLACEHOLDERS)) if (!(name in extra)) delete env[name];
  return env;
}

function runCompose(root, args, extraEnv) {
  if (!hasCommand('docker-compose')) {
    throw new Error(
      'docker-compose is not installed (apt-get install -y docker-compose): cannot validate docker-compose.yml',
    );
  }
  // --env-file: the example file, so a developer's own .env cannot change the outcome.
  return run(
    'docker-compose',
    ['--env-file', join(root, 'deploy/.env.example'), '-f', join(root, 'docker-compose.yml'), ...args],
    { cwd: root, env: composeEnv(extraEnv) },
  );
}

/** Semantics of the resolved compose file (`docker-compose config` output). */
export function checkComposeConfig(resolved, composeText, envExampleText) {
  const problems = [];
  const services = resolved?.services ?? {};
  for (const name of ['postgres', 'redis', 'migrate', ...SERVICES]) {
    if (!services[name]) problems.push(`compose: service ${name} missing`);
  }
  const redisCommand = [services.redis?.command ?? []].flat().join(' ');
  for (const [setting, pattern] of [
    ['hz 100', /--hz 100\b/],
    ['maxmemory-policy noeviction', /--maxmemory-policy noeviction\b/],
    ['appendonly yes', /--appendonly yes\b/],
  ]) {
    if (!pattern.test(redisCommand)) problems.push(`compose: redis must run with ${setting}`);
  }
  for (const name of ['postgres', 'redis', ...SERVICES]) {
    if (services[name] && !services[name].healthcheck?.test) problems.push(`compose: ${name} has no healthcheck`);
  }
  // Long-running containers come back after a crash; the one-shot migration must not loop.
  for (const name of ['postgres', 'redis', ...SERVICES]) {
    if (services[name] && !['unless-stopped', 'always'].includes(services[name].restart)) {
      problems.push(`compose: ${name} must have restart: unless-stopped`);
    }
  }
  if (services.migrate && !['no', undefined].includes(services.migrate.restart)) {
    problems.push('compose: migrate must not restart (restart: "no")');
  }
  if (services.migrate?.depends_on?.postgres?.condition !== 'service_healthy') {
    problems.push('compose: migrate must wait for postgres (service_healthy)');
  }
  for (const name of SERVICES) {
    const dependsOn = services[name]?.depends_on ?? {};
    if (dependsOn.migrate?.condition !== 'service_completed_successfully') {
      problems.push(`compose: ${name} must wait for migrate (service_completed_successfully)`);
    }
    for (const store of ['postgres', 'redis']) {
      if (dependsOn[store]?.condition !== 'service_healthy') {
        problems.push(`compose: ${name} must wait for ${store} (service_healthy)`);
      }
    }
  }
  // Profile `stores`: PostgreSQL and Redis alone, published on 127.0.0.1 only, Redis tuned as above.
  for (const [name, port] of [
    ['stores-postgres', 5432],
    ['stores-redis', 6379],
  ]) {
    const service = services[name];
    if (!service) {
      problems.push(`compose: service ${name} (profile stores) missing`);
      continue;
    }
    if (!(service.profiles ?? []).includes('stores')) problems.push(`compose: ${name} must be in profile stores`);
    if (!service.healthcheck?.test) problems.push(`compose: ${name} has no healthcheck`);
    const published = (service.ports ?? []).map((entry) =>
      typeof entry === 'string'
        ? {
            hostIp: entry.split(':').length === 3 ? entry.split(':')[0] : '',
            published: Number(entry.split(':').at(-2)),
          }
        : { hostIp: entry.host_ip ?? '', published: Number(entry.published) },
    );
    if (!published.some((entry) => entry.published === port))
      problems.push(`compose: ${name} must publish ${port} (where pnpm start looks)`);
    if (published.some((entry) => entry.hostIp !== '127.0.0.1'))
      problems.push(`compose: ${name} must publish on 127.0.0.1 only`);
    if (service.depends_on && Object.keys(service.depends_on).length > 0)
      problems.push(`compose: ${name} must start alone (no depends_on)`);
  }
  for (const [name, service] of Object.entries(services)) {
    if (!['stores-postgres', 'stores-redis'].includes(name) && (service.profiles ?? []).includes('stores'))
      problems.push(`compose: profile stores runs the stores only, not ${name}`);
  }
  const storesRedisCommand = [services['stores-redis']?.command ?? []].flat().join(' ');
  if (services['stores-redis'] && storesRedisCommand !== redisCommand)
    problems.push('compose: stores-redis must run with the same command as redis');
  const executorGraceS = Number.parseInt(String(services.executor?.stop_grace_period ?? '10s'), 10);
  const drainMs = Number(services.executor?.environment?.EXECUTOR_SHUTDOWN_TIMEOUT_MS ?? 35000);
  if (!(executorGraceS * 1000 > drainMs))
    problems.push('compose: executor stop_grace_period must exceed its drain time');
  const documented = new Set([...envExampleText.matchAll(/^([A-Z0-9_]+)=/gm)].map((match) => match[1]));
  const uncommented = composeText.replace(/^\s*#.*$/gm, '');
  for (const [, name] of uncommented.matchAll(/\$\{([A-Z0-9_]+)/g)) {
    if (!documented.has(name)) problems.push(`compose: \${${name}} is not listed in deploy/.env.example`);
  }
  for (const name of Object.keys(COMPOSE_PLACEHOLDERS)) {
    if (new RegExp(`^${name}=\\S`, 'm').test(envExampleText)) {
      problems.push(`deploy/.env.example: ${name} must be left empty (no secret values in the repository)`);
    }
  }
  return problems;
}

/** `docker-compose config` with placeholder secrets, parsed: the file as Compose resolves it. */
export function resolveCompose(root = ROOT) {
  const resolved = runCompose(root, ['config'], COMPOSE_PLACEHOLDERS);
  if (resolved.status !== 0) throw new Error(`docker-compose config failed:\n${resolved.stderr}`);
  return parseYamlDocuments(resolved.stdout)[0];
}

export function checkCompose(root = ROOT) {
  const problems = [];
  const valid = runCompose(root, ['config', '-q'], COMPOSE_PLACEHOLDERS);
  if (valid.status !== 0) problems.push(`compose: docker-compose config -q failed:\n${valid.stderr}`);
  for (const name of Object.keys(COMPOSE_PLACEHOLDERS)) {
    const { [name]: _omitted, ...others } = COMPOSE_PLACEHOLDERS;
    const missing = runCompose(root, ['config', '-q'], others);
    if (missing.status === 0 || !missing.stderr.includes(name)) {
      problems.push(`compose: config must fail when ${name} is unset (it passed or did not name it)`);
    }
  }
  if (valid.status === 0) {
    problems.push(
      ...checkComposeConfig(
        resolveCompose(root),
        readFileSync(join(root, 'docker-compose.yml'), 'utf8'),
        readFileSync(join(root, 'deploy/.env.example'), 'utf8'),
      ),
    );
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// deploy/Dockerfile
// ---------------------------------------------------------------------------------------------

/** Stages of a Dockerfile: { name, from, instructions: [{ op, args }] } (continuations joined). */
export function parseDockerfile(text) {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const stages = [];
  const args = {};
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [, op, rest] = /^(\S+)\s*(.*)$/.exec(line);
    const instruction = { op: op.toUpperCase(), args: rest.trim() };
    if (instruction.op === 'ARG' && stages.length === 0) {
      const [name, value] = instruction.args.split('=');
      args[name] = value;
      continue;
    }
    if (instruction.op === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      const from = match[1].replace(/\$\{(\w+)\}/g, (_, name) => args[name] ?? '');
      stages.push({ name: match[2] ?? String(stages.length), from, instructions: [] });
      continue;
    }
    if (stages.length === 0) throw new Error(`Dockerfile: ${instruction.op} before the first FROM`);
    stages.at(-1).instructions.push(instruction);
  }
  return stages;
}

const execForm = (args) => {
  try {
    const parsed = JSON.parse(args);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
};

/** The stage chain of a target, base first (FROM <earlier stage> links). */
function chainOf(stages, target) {
  const chain = [];
  for (let stage = stages.find((s) => s.name === target); stage; stage = stages.find((s) => s.name === stage.from)) {
    chain.unshift(stage);
  }
  return chain;
}

/** The value of the last `op` in a target's chain (USER, CMD, HEALTHCHECK, ...). */
function effective(stages, target, op) {
  const found = chainOf(stages, target)
    .flatMap((stage) => stage.instructions)
    .filter((instruction) => instruction.op === op);
  return found.at(-1)?.args;
}

/** The pnpm the workspace pins (package.json packageManager) as `pnpm@<version>`. */
export function rootPackageManager(root = ROOT) {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager;
}

export function checkDockerfile(text, { root = ROOT, packageManager } = {}) {
  const problems = [];
  const stages = parseDockerfile(text);
  const baseImage = stages[0]?.from;
  const nodeMajor = readFileSync(join(root, '.nvmrc'), 'utf8').trim().split('.')[0];
  if (baseImage !== `node:${nodeMajor}-slim`)
    problems.push(`Dockerfile: first stage must build FROM node:${nodeMajor}-slim (.nvmrc; is ${baseImage})`);
  const everything = stages.flatMap((stage) => stage.instructions.map((instruction) => instruction.args)).join('\n');
  const pnpmVersion = packageManager?.replace(/^pnpm@/, ''); // `pnpm@<version>`
  if (pnpmVersion && !everything.includes(`pnpm@${pnpmVersion}`)) {
    problems.push(`Dockerfile: must install pnpm@${pnpmVersion} (package.json packageManager)`);
  }
  for (const command of ['pnpm install --frozen-lockfile', 'pnpm build']) {
    if (!everything.includes(command)) problems.push(`Dockerfile: must run \`${command}\``);
  }
  const buildStages = new Set(['build', ...stages.filter((stage) => stage.name.endsWith('-deps')).map((s) => s.name)]);
  const expected = {
    ...Object.fromEntries(
      SERVICES.map((service) => [service, ['node', '--enable-source-maps', `services/${service}/dist/main.js`]]),
    ),
    migrate: ['node', 'scripts/prisma.mjs', 'deploy'],
  };
  for (const [target, command] of Object.entries(expected)) {
    if (!stages.some((stage) => stage.name === target)) {
      problems.push(`Dockerfile: target ${target} missing`);
      continue;
    }
    const chain = chainOf(stages, target);
    const user = effective(stages, target, 'USER');
    if (!user || /^(root|0)(:|$)/.test(user))
      problems.push(`Dockerfile: target ${target} runs as root (USER ${user ?? 'unset'})`);
    const cmd = execForm(effective(stages, target, 'CMD') ?? '');
    if (JSON.stringify(cmd) !== JSON.stringify(command)) {
      problems.push(`Dockerfile: target ${target} CMD is ${JSON.stringify(cmd)}, expected ${JSON.stringify(command)}`);
    }
    if (chain.some((stage) => stage.name === 'build'))
      problems.push(`Dockerfile: target ${target} is built on the build stage`);
    // Final stages copy production trees only (the per-service /out, the migration's dependencies).
    for (const instruction of chain.flatMap((stage) => stage.instructions)) {
      const from = /--from=(\S+)/.exec(instruction.args)?.[1];
      if (instruction.op === 'COPY' && from && buildStages.has(from) && !from.endsWith('-deps')) {
        problems.push(`Dockerfile: target ${target} copies from ${from} (build tools and devDependencies)`);
      }
      if (instruction.op === 'COPY' && !from) {
        const sources = instruction.args
          .split(/\s+/)
          .filter((part) => !part.startsWith('--'))
          .slice(0, -1);
        for (const source of sources) {
          if (!existsSync(join(root, source))) problems.push(`Dockerfile: target ${target} copies missing ${source}`);
        }
      }
    }
    if (target !== 'migrate') {
      const healthcheck = effective(stages, target, 'HEALTHCHECK');
      if (!healthcheck || !healthcheck.includes('deploy/healthcheck.mjs')) {
        problems.push(`Dockerfile: target ${target} has no HEALTHCHECK`);
      }
      // The stage that runs deploy/assemble-service.sh for this service, and the target copies from it.
      const filesStage = stages.find((stage) =>
        stage.instructions.some(
          (instruction) =>
            instruction.op === 'RUN' &&
            new RegExp(`assemble-service\\.sh(\\s+\\w+)*\\s+${target}\\b`).test(instruction.args),
        ),
      );
      const copiesFiles = chain
        .flatMap((stage) => stage.instructions)
        .some((instruction) => instruction.op === 'COPY' && instruction.args.includes(`--from=${filesStage?.name}`));
      if (!filesStage || !copiesFiles) {
        problems.push(
          `Dockerfile: target ${target} must copy ${target}'s production files (deploy/assemble-service.sh)`,
        );
      }
      if (!existsSync(join(root, `services/${target}/src/main.ts`))) {
        problems.push(
          `Dockerfile: target ${target} starts services/${target}/dist/main.js, but src/main.ts is missing`,
        );
      }
    }
  }
  for (const path of ['deploy/assemble-service.sh', 'deploy/healthcheck.mjs', '.dockerignore']) {
    if (!existsSync(join(root, path))) problems.push(`Dockerfile: ${path} missing`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const sections = [];
  const attempt = (name, fn) => {
    try {
      const problems = fn();
      sections.push({ name, problems });
    } catch (error) {
      sections.push({ name, problems: [error.message] });
    }
  };
  const packageManager = rootPackageManager(ROOT);
  attempt('deploy/Dockerfile', () =>
    checkDockerfile(readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8'), { packageManager }),
  );
  attempt('docker-compose.yml', () => checkCompose(ROOT));
  for (const { dir, requireTags } of kustomizations(ROOT)) {
    attempt(relative(ROOT, dir), () => {
      const docs = renderKustomization(dir);
      const problems = checkManifests(docs, { requireTags });
      const kinds = new Map();
      for (const doc of docs) kinds.set(doc.kind, (kinds.get(doc.kind) ?? 0) + 1);
      if (problems.length === 0) {
        console.log(
          `  ${relative(ROOT, dir)}: ${docs.length} documents (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')})`,
        );
      }
      return problems;
    });
  }
  let failed = 0;
  for (const { name, problems } of sections) {
    if (problems.length === 0) console.log(`validate-deploy: ${name}: ok`);
    for (const problem of problems) console.error(`validate-deploy: ${name}: ${problem}`);
    if (problems.length > 0) failed += 1;
  }
  // Not the "N passed, N failed" shape: CI reads that as a test runner's closing line.
  console.log(`validate-deploy: ${sections.length - failed} of ${sections.length} artefact groups valid`);
  process.exit(failed === 0 ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
