import { unwrap } from '@kairos/client';
import { analysisSessionRecord, analysisSessionsPage, listAnalysisSessionsQuery } from '@kairos/core';
import { z } from 'zod';
import {
  PAGING_NOTE,
  READ_ONLY,
  asOutput,
  defineTool,
  describePage,
  idArg,
  pageInfo,
  withNextOffsetOutput,
} from '../tool.js';

export const analysisTools = [
  defineTool({
    name: 'listAnalysisSessions',
    title: "List an endpoint's AI analysis sessions",
    description:
      "The AI planner's analyses of an endpoint, newest first: reasoning, tools called, tokens, duration, " +
      `when it looks again and the failure count it saw (failed and skipped analyses say why). ${PAGING_NOTE}`,
    input: z.strictObject({ id: idArg('endpoint'), ...listAnalysisSessionsQuery.shape }),
    output: withNextOffsetOutput(analysisSessionsPage),
    annotations: READ_ONLY,
    run: async (api, { id, ...query }) => {
      const page = await unwrap(
        api.GET('/api/endpoints/{endpointId}/analysis-sessions', { params: { path: { endpointId: id }, query } }),
      );
      return { ...page, nextOffset: pageInfo(page.sessions.length, page.total, query.offset).nextOffset };
    },
    summarize: (page) => describePage('analysis sessions', page.sessions.length, page),
  }),
  defineTool({
    name: 'getAnalysisSession',
    title: 'Get an AI analysis session',
    description:
      'One analysis in detail: reasoning, confidence, and every proposal the planner made (actionsApplied) with ' +
      'what the governor did with it (applied, refused and why, or not applied in shadow mode).',
    input: z.strictObject({ id: idArg('analysis session') }),
    output: asOutput(analysisSessionRecord),
    annotations: READ_ONLY,
    run: (api, args) =>
      unwrap(api.GET('/api/analysis-sessions/{sessionId}', { params: { path: { sessionId: args.id } } })),
    summarize: (session) =>
      `Analysis ${session.id} ${session.status}: ${session.toolsCalled.length} tool calls, ` +
      `${session.actionsApplied.filter((action) => action.applied).length} changes applied.` +
      (session.reasoning ? `\n${session.reasoning}` : ''),
  }),
];
