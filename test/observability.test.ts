/**
 * deploy/observability: the alert rules and the Grafana dashboard.
 *
 * - Every metric, label and label value an alert or a dashboard query names exists on a real
 *   /metrics: a service's operations port (startServiceHealth, as the executor starts it, with the
 *   real queues on the machine's Redis under a throw-away prefix), after the recording calls the
 *   services make. A renamed series or a typo in a label fails here instead of drawing an empty panel
 *   or never paging.
 * - promtool (Debian's `prometheus` package, installed by scripts/ensure-tools.mjs) checks the rules
 *   extracted from the PrometheusRule and runs their unit tests (prometheus-rules.test.yaml).
 * - The Kustomization renders the PrometheusRule and the dashboard ConfigMap.
 * Each checker is also shown to refuse a broken input, so none can pass by accepting everything.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parse, stringify } from 'yaml';
import { QUEUES } from '@kairos/queue';
import { createLogger, metrics, startServiceHealth, type HealthServer } from '@kairos/runtime';
import { ROOT, renderKustomization, validateDocument, type Manifest } from '../scripts/validate-deploy.mjs';
import { REDIS_URL } from './env.mjs';

const run = promisify(execFile);
const DIR = join(ROOT, 'deploy/observability');
const read = (name: string) => readFileSync(join(DIR, name), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const ruleResource = parse(read('prometheus-rules.yaml')) as Manifest;
const rules = (ruleResource.spec.groups as { rules: Rule[] }[]).flatMap((group) => group.rules);
const dashboard = JSON.parse(read('grafana-dashboard.json'));

// ---------------------------------------------------------------------------------------------
// What a PromQL expression names
// ---------------------------------------------------------------------------------------------

interface Matcher {
  metric: string;
  label: string;
  op: string;
  value: string;
}
interface Referenced {
  metrics: Set<string>;
  matchers: Matcher[];
  /** Labels of by / without / on / ignoring / group_left / group_right clauses. */
  grouping: Set<string>;
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
/** Aggregations may put `by (…)` between their name and their parenthesis. */
const AGGREGATIONS = new Set([
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'group',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
]);
const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const MATCHER = /([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g;

/**
 * A small PromQL scanner, enough for our own queries: identifiers followed by `(` are functions or
 * aggregations, `by (…)` lists are labels, `{…}` are the matchers of the identifier before them,
 * `[…]` are ranges; any other identifier is a metric name.
 */
function referencedIn(expr: string): Referenced {
  const found: Referenced = { metrics: new Set(), matchers: [], grouping: new Set() };
  let i = 0;
  let lastMetric: string | null = null;
  const closing = (open: string, close: string) => {
    let depth = 0;
    for (let j = i; j < expr.length; j += 1) {
      const c = expr[j]!;
      if (c === '"' || c === "'") {
        j = expr.indexOf(c, j + 1);
        if (j < 0) throw new Error(`unterminated string in ${expr}`);
      } else if (c === open) depth += 1;
      else if (c === close && --depth === 0) return j;
    }
    throw new Error(`unbalanced ${open} in ${expr}`);
  };
  while (i < expr.length) {
    const c = expr[i]!;
    if (c === '{') {
      const end = closing('{', '}');
      if (!lastMetric) throw new Error(`a selector without a metric name in ${expr}`);
      for (const [, label, op, value] of expr.slice(i + 1, end).matchAll(MATCHER)) {
        found.matchers.push({ metric: lastMetric, label: label!, op: op!, value: value! });
      }
      i = end + 1;
      continue;
    }
    if (c === '[') {
      i = closing('[', ']') + 1;
      continue;
    }
    if (c === '"' || c === "'") {
      i = expr.indexOf(c, i + 1) + 1;
      continue;
    }
    const number = /^[0-9][0-9.eE+-]*/.exec(expr.slice(i));
    if (number) {
      i += number[0].length;
      continue;
    }
    const word = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(expr.slice(i));
    if (!word) {
      if (!/\s/.test(c)) lastMetric = null;
      i += 1;
      continue;
    }
    const name = word[0];
    i += name.length;
    const rest = expr.slice(i).trimStart();
    if (GROUPING.has(name) && rest.startsWith('(')) {
      const open = expr.indexOf('(', i);
      const close = expr.indexOf(')', open);
      for (const label of expr.slice(open + 1, close).split(',')) {
        if (label.trim()) found.grouping.add(label.trim());
      }
      i = close + 1;
      lastMetric = null;
    } else if (rest.startsWith('(') || KEYWORDS.has(name) || GROUPING.has(name) || AGGREGATIONS.has(name)) {
      lastMetric = null;
    } else {
      found.metrics.add(name);
      lastMetric = name;
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// What /metrics exposes
// ---------------------------------------------------------------------------------------------

interface Exposed {
  /** Family name → type (`# TYPE` lines). */
  families: Map<string, string>;
  /** Sample name (family name, or histogram _bucket/_sum/_count) → label → values seen. */
  samples: Map<string, Map<string, Set<string>>>;
}

function parseExposition(text: string): Exposed {
  const exposed: Exposed = { families: new Map(), samples: new Map() };
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) exposed.families.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(line);
    if (!sample) throw new Error(`unparsable sample line: ${line}`);
    const labels = exposed.samples.get(sample[1]!) ?? new Map<string, Set<string>>();
    exposed.samples.set(sample[1]!, labels);
    for (const [, label, , value] of (sample[2] ?? '').matchAll(MATCHER)) {
      labels.set(label!, (labels.get(label!) ?? new Set()).add(value!));
    }
  }
  return exposed;
}

/** Labels Prometheus attaches to every target (kubernetes_sd relabelling, PodMonitors). */
const TARGET_LABELS = new Set(['namespace', 'pod', 'instance', 'job']);

/** What in `expr` the scrape does not have; empty when every name exists. */
function unknownIn(expr: string, exposed: Exposed): string[] {
  const problems: string[] = [];
  const { metrics: names, matchers, grouping } = referencedIn(expr);
  if (names.size === 0) problems.push(`no metric in ${expr}`);
  const labelsOf = (name: string) => exposed.samples.get(name);
  for (const name of names) {
    const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
    const family = exposed.families.has(name)
      ? name
      : histogram && exposed.families.get(histogram[1]!) === 'histogram'
        ? histogram[1]!
        : null;
    if (!family) problems.push(`metric ${name} is not exposed`);
    else if (!labelsOf(name)) problems.push(`metric ${name} has no samples (the test records none?)`);
  }
  for (const matcher of matchers) {
    const labels = labelsOf(matcher.metric);
    if (!labels || TARGET_LABELS.has(matcher.label)) continue;
    const values = labels.get(matcher.label);
    if (!values) {
      problems.push(`${matcher.metric} has no label ${matcher.label}`);
      continue;
    }
    // Positive matchers on literal values must name values that occur; negative ones may exclude
    // values this process never records, and Grafana variables are resolved at query time.
    if (matcher.op === '!=' || matcher.op === '!~' || matcher.value.includes('$')) continue;
    const wanted = matcher.op === '=' ? [matcher.value] : matcher.value.split('|');
    for (const value of wanted) {
      if (!values.has(value)) problems.push(`${matcher.metric}{${matcher.label}="${value}"} never occurs`);
    }
  }
  const known = new Set([...TARGET_LABELS, ...[...names].flatMap((name) => [...(labelsOf(name)?.keys() ?? [])])]);
  for (const label of grouping) if (!known.has(label)) problems.push(`grouping by unknown label ${label} in ${expr}`);
  return problems;
}

interface Query {
  where: string;
  expr: string;
}
function dashboardQueries(board: typeof dashboard): Query[] {
  const queries: Query[] = [];
  for (const panel of board.panels as { title: string; type: string; targets?: { expr: string }[] }[]) {
    for (const target of panel.targets ?? []) queries.push({ where: `panel "${panel.title}"`, expr: target.expr });
  }
  for (const variable of board.templating.list as { name: string; query?: string | { query: string } }[]) {
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    const labelValues = query ? /^label_values\(([^,]+),\s*(\w+)\)$/.exec(query) : null;
    if (labelValues) queries.push({ where: `variable ${variable.name}`, expr: labelValues[1]! });
  }
  return queries;
}

// ---------------------------------------------------------------------------------------------

const prefix = `{kairos-test-${randomBytes(4).toString('hex')}}`;
let redis: Redis;
let queues: Queue[];
let server: HealthServer;
let exposed: Exposed;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kairos-observability-'));
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queues = Object.values(QUEUES).map((name) => new Queue(name, { connection: redis, prefix }));
  const logger = createLogger('observability-test', 'error');
  logger.silent = true;
  server = await startServiceHealth({
    service: 'executor',
    port: 0,
    host: '127.0.0.1',
    checks: { redis: () => redis.ping() },
    queues,
    logger,
  });
  // What the services record (executor, scheduler's reconcile, planner), once each.
  const scheduledAt = new Date('2026-01-01T00:00:00.000Z');
  for (const status of ['success', 'failed']) {
    metrics.observeRun({
      source: 'baseline-interval',
      status,
      scheduledAt,
      startedAt: new Date(scheduledAt.getTime() + 12),
    });
  }
  metrics.executionsSkipped.inc({ reason: 'paused' });
  metrics.executorConcurrencyLimit.set(100);
  for (const phase of ['admission', 'wait', 'call', 'record']) metrics.executionPhase.observe({ phase }, 0.01);
  metrics.executorConcurrencyInUse.set(7);
  metrics.plannerTokens.inc(1500);
  metrics.plannerFailures.inc({ reason: 'unreachable' });
  metrics.reconcileRepairs.inc({ kind: 'restored' }, 3);
  metrics.reconcileRepairs.inc({ kind: 'recomputed' }, 1);
  metrics.sweepItemFailures.inc({ sweep: 'reconcile' });

  const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  expect(response.status).toBe(200);
  exposed = parseExposition(await response.text());
});

afterAll(async () => {
  await server.close();
  await Promise.all(queues.map((queue) => queue.close()));
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe('names used by alerts and dashboard exist on /metrics', () => {
  it('reads a real scrape: every kairos family, labelled by service, queues read from Redis', () => {
    const kairosFamilies = [...exposed.families.keys()].filter((name) => name.startsWith('kairos_'));
    expect(kairosFamilies.length).toBeGreaterThanOrEqual(9);
    expect(exposed.samples.get('kairos_queue_jobs')?.get('queue')).toEqual(new Set(Object.values(QUEUES)));
    expect(exposed.samples.get('kairos_runs_total')?.get('service')).toEqual(new Set(['executor']));
  });

  it.each(rules.map((rule) => [rule.alert, rule.expr]))('alert %s', (_alert, expr) => {
    expect(unknownIn(expr, exposed)).toEqual([]);
  });

  it.each(dashboardQueries(dashboard).map((query) => [query.where, query.expr]))('dashboard %s', (_where, expr) => {
    expect(unknownIn(expr, exposed)).toEqual([]);
  });

  it('the dashboard shows every kairos series', () => {
    const used = new Set(dashboardQueries(dashboard).flatMap((query) => [...referencedIn(query.expr).metrics]));
    const families = [...exposed.families.keys()].filter((name) => name.startsWith('kairos_'));
    const missing = families.filter(
      (family) => ![family, `${family}_bucket`, `${family}_sum`, `${family}_count`].some((name) => used.has(name)),
    );
    expect(missing).toEqual([]);
  });

  it('refuses a renamed metric, an unknown label or value, and a grouping label nobody sets', () => {
    expect(unknownIn('rate(kairos_dispatch_lag_bucket[5m])', exposed)).toEqual([
      'metric kairos_dispatch_lag_bucket is not exposed',
    ]);
    expect(unknownIn('kairos_runs_total{outcome="failed"}', exposed)).toEqual([
      'kairos_runs_total has no label outcome',
    ]);
    expect(unknownIn('kairos_queue_jobs{queue=~"due|dues"}', exposed)).toEqual([
      'kairos_queue_jobs{queue="dues"} never occurs',
    ]);
    expect(unknownIn('sum by (tenant) (kairos_runs_total)', exposed)).toEqual([
      'grouping by unknown label tenant in sum by (tenant) (kairos_runs_total)',
    ]);
    expect(unknownIn('kairos_runs_total_count', exposed)).toEqual(['metric kairos_runs_total_count is not exposed']);
  });
});

describe('deploy/observability/grafana-dashboard.json', () => {
  it('is an importable dashboard: unique panel ids, a query per panel, the datasource variable', () => {
    expect(dashboard).toMatchObject({ uid: 'kairos-overview', title: 'Kairos', schemaVersion: expect.any(Number) });
    const panels = dashboard.panels as {
      id: number;
      type: string;
      targets?: unknown[];
      datasource?: { uid: string };
    }[];
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    for (const panel of panels.filter((candidate) => candidate.type !== 'row')) {
      expect(panel.targets?.length).toBeGreaterThan(0);
      expect(panel.datasource?.uid).toBe('${datasource}');
    }
    expect(dashboard.templating.list.map((variable: { name: string }) => variable.name)).toEqual([
      'datasource',
      'namespace',
    ]);
  });
});

describe('deploy/observability/prometheus-rules.yaml', () => {
  /** The PrometheusRule's spec as a plain Prometheus rules file. */
  const rulesFile = (name: string, edit: (spec: Manifest) => void = () => undefined) => {
    const spec = structuredClone(ruleResource.spec);
    edit(spec);
    const path = join(dir, name);
    writeFileSync(path, stringify(spec));
    return path;
  };
  const withoutAnnotations = (spec: Manifest) => {
    for (const group of spec.groups) for (const rule of group.rules) delete rule.annotations;
  };
  const promtool = async (...args: string[]) => {
    try {
      const { stdout } = await run('promtool', args, { cwd: dir, timeout: 60_000 });
      return { ok: true, output: stdout };
    } catch (error) {
      const failed = error as { stdout: string; stderr: string };
      return { ok: false, output: `${failed.stdout}${failed.stderr}` };
    }
  };

  it('has the six alerts, each with a for, a severity and a summary and description', () => {
    expect(ruleResource).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
    expect(rules.map((rule) => rule.alert)).toEqual([
      'KairosDispatchLagHigh',
      'KairosExecutorSaturated',
      'KairosReconcileRepairing',
      'KairosPlannerFailing',
      'KairosQueueGrowing',
      'KairosQueueMetricsMissing',
    ]);
    for (const rule of rules) {
      expect(rule.for).toMatch(/^\d+m$/);
      expect(['warning', 'critical']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
    }
  });

  it('each alert is explained in docs/operations/observability.md', () => {
    const section =
      readFileSync(join(ROOT, 'docs/operations/observability.md'), 'utf8').split('## Alerts and dashboard')[1] ?? '';
    for (const rule of rules) expect(section).toContain(`**${rule.alert}**`);
  });

  it('passes promtool check rules; a broken expression does not', async () => {
    const checked = await promtool('check', 'rules', rulesFile('full.yaml'));
    expect(checked.output).toContain('SUCCESS: 6 rules found');
    expect(checked.ok).toBe(true);
    const broken = rulesFile('broken.yaml', (spec) => {
      spec.groups[0].rules[0].expr =
        'histogram_quantile(0.99, sum by (le) (rate(kairos_dispatch_lag_seconds_bucket[5m]))';
    });
    expect((await promtool('check', 'rules', broken)).ok).toBe(false);
  });

  it('passes its promtool unit tests; the tests catch a threshold moved out of reach', async () => {
    rulesFile('kairos-rules.yaml', withoutAnnotations);
    copyFileSync(join(DIR, 'prometheus-rules.test.yaml'), join(dir, 'prometheus-rules.test.yaml'));
    const tested = await promtool('test', 'rules', 'prometheus-rules.test.yaml');
    expect(tested.output).toContain('SUCCESS');
    expect(tested.ok).toBe(true);

    rulesFile('kairos-rules.yaml', (spec) => {
      withoutAnnotations(spec);
      const lag = spec.groups[0].rules.find((rule: Rule) => rule.alert === 'KairosDispatchLagHigh');
      lag.expr = lag.expr.replace('> 0.25', '> 1');
    });
    const mutated = await promtool('test', 'rules', 'prometheus-rules.test.yaml');
    expect(mutated.ok).toBe(false);
    expect(mutated.output).toContain('KairosDispatchLagHigh');
  });
});

describe('deploy/observability/kustomization.yaml', () => {
  it('renders the PrometheusRule and the dashboard as a ConfigMap for the Grafana sidecar', () => {
    const docs = renderKustomization(DIR);
    expect(docs.map((doc) => `${doc.kind}/${doc.metadata.name}`).sort()).toEqual([
      'ConfigMap/kairos-grafana-dashboard',
      'PrometheusRule/kairos',
    ]);
    const configMap = docs.find((doc) => doc.kind === 'ConfigMap')!;
    expect(validateDocument(configMap)).toEqual([]);
    expect(configMap.metadata).toMatchObject({ namespace: 'kairos', labels: { grafana_dashboard: '1' } });
    expect(JSON.parse(configMap.data['kairos.json'])).toEqual(dashboard);
    const rule = docs.find((doc) => doc.kind === 'PrometheusRule')!;
    expect(rule.spec).toEqual(ruleResource.spec);
  });
});
