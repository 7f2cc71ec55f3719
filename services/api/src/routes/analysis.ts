/**
 * AI analysis: the planner's sessions per endpoint, newest
 * first, and one session in detail. The list view leaves out actionsApplied and confidence.
 */
import {
  analysisSessionRecord,
  analysisSessionsPage,
  listAnalysisSessionsQuery,
  type AnalysisSessionRecord,
  type AnalysisSessionSummaryRecord,
  type PlannerActionRecord,
} from '@kairos/core';
import { getAnalysisSession, listAnalysisSessions, type AnalysisSession } from '@kairos/db';
import type { RouteRegistry } from '../http/route.js';
import { errorResponses, pageHeaderDocs, pageHeaders } from './common.js';
import type { ApiDeps } from './deps.js';

export function toAnalysisSessionSummary(session: AnalysisSession): AnalysisSessionSummaryRecord {
  return {
    id: session.id,
    endpointId: session.endpointId,
    createdAt: session.createdAt.toISOString(),
    status: session.status,
    shadow: session.shadow,
    trigger: session.trigger,
    reasoning: session.reasoning,
    toolsCalled: session.toolsCalled,
    tokenUsage: session.tokenUsage,
    durationMs: session.durationMs,
    nextAnalysisAt: session.nextAnalysisAt?.toISOString() ?? null,
    endpointFailureCount: session.endpointFailureCount,
    errorMessage: session.errorMessage,
  };
}

export function toAnalysisSessionRecord(session: AnalysisSession): AnalysisSessionRecord {
  const actions = Array.isArray(session.actionsApplied) ? (session.actionsApplied as unknown[]) : [];
  return {
    ...toAnalysisSessionSummary(session),
    actionsApplied: actions.map((action) => {
      const { tool, params, result, applied } = action as Partial<PlannerActionRecord>;
      return { tool: tool ?? '', params: params ?? {}, result: result ?? '', applied: applied ?? false };
    }),
    confidence: session.confidence as AnalysisSessionRecord['confidence'],
    model: session.model,
    inputTokens: session.inputTokens,
    outputTokens: session.outputTokens,
    ...(session.tokensEstimated ? { tokensEstimated: true as const } : {}),
  };
}

export function registerAnalysisRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['AI analysis'];

  routes.add(
    {
      method: 'get',
      path: '/api/endpoints/:endpointId/analysis-sessions',
      operationId: 'listAnalysisSessions',
      summary: "The planner's analysis sessions of an endpoint, newest first",
      description:
        'List view: reasoning, tools called, tokens, duration, when the planner looks again and the failure ' +
        'count it saw; GET /api/analysis-sessions/{sessionId} adds the actions and the confidence. Failed ' +
        'analyses (model unreachable, timeout, step limit) and skipped ones (token budget exhausted) are ' +
        'listed with errorMessage.',
      tags,
      query: listAnalysisSessionsQuery,
      responses: {
        200: {
          description: 'A page of sessions',
          schema: analysisSessionsPage,
          headers: pageHeaderDocs('Sessions of the endpoint (the same as total)'),
        },
        ...errorResponses(400, 404),
      },
    },
    async ({ auth, params, query, req }) => {
      const { sessions, total } = await listAnalysisSessions(db, auth.accountId, params.endpointId!, query);
      return {
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
        body: {
          sessions: sessions.map(toAnalysisSessionSummary),
          total,
          hasMore: query.offset + sessions.length < total,
        },
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/analysis-sessions/:sessionId',
      operationId: 'getAnalysisSession',
      summary: 'One analysis session in detail',
      description:
        'actionsApplied lists every proposal the planner made, each with the result the governor gave ' +
        '(applied, refused and why, or not applied in shadow mode).',
      tags,
      responses: { 200: { description: 'The session', schema: analysisSessionRecord }, ...errorResponses(404) },
    },
    async ({ auth, params }) => ({
      body: toAnalysisSessionRecord(await getAnalysisSession(db, auth.accountId, params.sessionId!)),
    }),
  );
}
