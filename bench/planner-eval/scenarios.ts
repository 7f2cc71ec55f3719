/**
 * The scenarios of the planner evaluation: each a simulated target with a scripted life (what it
 * answers at each virtual time), the endpoint's description and baseline, and the cadence the
 * description asks for at each time (what "the cadence matched" is measured against).
 */

export interface TargetResponse {
  statusCode: number;
  body: unknown;
}

export interface Phase {
  /** Virtual minutes from the start. */
  fromMinute: number;
  /** The interval the description asks for in this phase, in ms. */
  desiredMs: number;
  respond: () => TargetResponse;
  /** A sibling endpoint's latest response in this phase (the sibling scenario). */
  sibling?: TargetResponse;
}

export interface Scenario {
  name: string;
  endpointName: string;
  description: string;
  jobDescription: string;
  baselineIntervalMs: number;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
  phases: Phase[];
  sibling?: { name: string; description: string };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ok = (body: unknown): TargetResponse => ({ statusCode: 200, body });

export const SCENARIOS: Scenario[] = [
  {
    name: 'backlog rise/drain',
    endpointName: 'Order backlog',
    description:
      'Returns { "backlog": n }. Every minute while the backlog is above 100, hourly when it is empty (0), every 10 minutes otherwise.',
    jobDescription: 'Drains the order queue',
    baselineIntervalMs: 10 * MINUTE,
    minIntervalMs: MINUTE,
    maxIntervalMs: HOUR,
    phases: [
      { fromMinute: 0, desiredMs: HOUR, respond: () => ok({ backlog: 0 }) },
      { fromMinute: 6 * 60 + 7, desiredMs: MINUTE, respond: () => ok({ backlog: 450 }) },
      { fromMinute: 8 * 60 + 13, desiredMs: 10 * MINUTE, respond: () => ok({ backlog: 40 }) },
      { fromMinute: 10 * 60 + 31, desiredMs: HOUR, respond: () => ok({ backlog: 0 }) },
      { fromMinute: 17 * 60 + 3, desiredMs: MINUTE, respond: () => ok({ backlog: 220 }) },
      { fromMinute: 18 * 60 + 49, desiredMs: HOUR, respond: () => ok({ backlog: 0 }) },
    ],
  },
  {
    name: 'outage + recovery',
    endpointName: 'Payments health',
    description:
      'Health check of the payments API. Every 5 minutes; while it is down (a failed run), every minute, to see the recovery at once.',
    jobDescription: 'Payments monitoring',
    baselineIntervalMs: 5 * MINUTE,
    minIntervalMs: MINUTE,
    maxIntervalMs: null,
    phases: [
      { fromMinute: 0, desiredMs: 5 * MINUTE, respond: () => ok({ status: 'up' }) },
      {
        fromMinute: 9 * 60 + 2,
        desiredMs: MINUTE,
        respond: () => ({ statusCode: 503, body: { status: 'down' } }),
      },
      { fromMinute: 11 * 60 + 17, desiredMs: 5 * MINUTE, respond: () => ok({ status: 'up' }) },
    ],
  },
  {
    name: '429 storm (Retry-After)',
    endpointName: 'Partner sync',
    description:
      'Partner API: every 2 minutes. When it answers HTTP 429 it sends Retry-After: 600; do not call it again for 10 minutes.',
    jobDescription: 'Partner data sync',
    baselineIntervalMs: 2 * MINUTE,
    minIntervalMs: MINUTE,
    maxIntervalMs: null,
    phases: [
      { fromMinute: 0, desiredMs: 2 * MINUTE, respond: () => ok({ synced: 12 }) },
      {
        fromMinute: 5 * 60 + 11,
        desiredMs: 10 * MINUTE,
        respond: () => ({ statusCode: 429, body: { error: 'rate_limited', retryAfterSeconds: 600 } }),
      },
      { fromMinute: 7 * 60 + 4, desiredMs: 2 * MINUTE, respond: () => ok({ synced: 3 }) },
      {
        fromMinute: 15 * 60 + 37,
        desiredMs: 10 * MINUTE,
        respond: () => ({ statusCode: 429, body: { error: 'rate_limited', retryAfterSeconds: 600 } }),
      },
      { fromMinute: 16 * 60 + 45, desiredMs: 2 * MINUTE, respond: () => ok({ synced: 8 }) },
    ],
  },
  {
    name: 'disappearing field',
    endpointName: 'Queue depth',
    description:
      'Returns the queue depth. Every minute while the depth is above 1000, every 10 minutes otherwise. The response format may change.',
    jobDescription: 'Worker queue',
    baselineIntervalMs: 10 * MINUTE,
    minIntervalMs: MINUTE,
    maxIntervalMs: null,
    phases: [
      { fromMinute: 0, desiredMs: 10 * MINUTE, respond: () => ok({ depth: 40 }) },
      { fromMinute: 4 * 60 + 3, desiredMs: MINUTE, respond: () => ok({ depth: 2400 }) },
      { fromMinute: 5 * 60 + 9, desiredMs: 10 * MINUTE, respond: () => ok({ depth: 80 }) },
      // A new API version: the field moves.
      { fromMinute: 12 * 60 + 1, desiredMs: MINUTE, respond: () => ok({ queue: { depth: 3100 } }) },
      { fromMinute: 13 * 60 + 43, desiredMs: 10 * MINUTE, respond: () => ok({ queue: { depth: 12 } }) },
    ],
  },
  {
    name: 'sibling reports dependency down',
    endpointName: 'Catalog import',
    description:
      'Imports the catalog every 5 minutes. It needs the database the sibling "Database status" reports on: while that is down, ' +
      'the import fails with 502; then call it only every 30 minutes.',
    jobDescription: 'Catalog pipeline: Database status reports whether the database is up',
    baselineIntervalMs: 5 * MINUTE,
    minIntervalMs: MINUTE,
    maxIntervalMs: null,
    sibling: { name: 'Database status', description: 'Reports { "database": "up" | "down" }' },
    phases: [
      { fromMinute: 0, desiredMs: 5 * MINUTE, respond: () => ok({ imported: 120 }), sibling: ok({ database: 'up' }) },
      {
        fromMinute: 7 * 60 + 5,
        desiredMs: 30 * MINUTE,
        respond: () => ({ statusCode: 502, body: { error: 'upstream unavailable' } }),
        sibling: ok({ database: 'down' }),
      },
      {
        fromMinute: 12 * 60 + 22,
        desiredMs: 5 * MINUTE,
        respond: () => ok({ imported: 80 }),
        sibling: ok({ database: 'up' }),
      },
    ],
  },
  {
    name: 'ok:false at HTTP 200',
    endpointName: 'Import trigger',
    description:
      'Starts an import; every 10 minutes. A body with "ok": false means the import failed even at HTTP 200: then retry every 2 minutes until it says ok.',
    jobDescription: 'Nightly imports',
    baselineIntervalMs: 10 * MINUTE,
    minIntervalMs: MINUTE,
    maxIntervalMs: null,
    phases: [
      { fromMinute: 0, desiredMs: 10 * MINUTE, respond: () => ok({ ok: true }) },
      { fromMinute: 3 * 60 + 8, desiredMs: 2 * MINUTE, respond: () => ok({ ok: false, error: 'lock held' }) },
      { fromMinute: 4 * 60 + 1, desiredMs: 10 * MINUTE, respond: () => ok({ ok: true }) },
      { fromMinute: 14 * 60 + 29, desiredMs: 2 * MINUTE, respond: () => ok({ ok: false, error: 'disk full' }) },
      { fromMinute: 15 * 60 + 2, desiredMs: 10 * MINUTE, respond: () => ok({ ok: true }) },
    ],
  },
];

/** The phase in force at `minute` (minutes from the start). */
export function phaseAt(scenario: Scenario, minute: number): Phase {
  let found = scenario.phases[0]!;
  for (const phase of scenario.phases) if (phase.fromMinute <= minute) found = phase;
  return found;
}
