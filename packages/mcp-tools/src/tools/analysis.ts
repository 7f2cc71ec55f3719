import { analysisSessionRecord, analysisSessionsPage, listAnalysisSessionsQuery } from '@kairos/core';
import { z } from 'zod';
import { READ_ONLY, asOutput, defineTool, idArg } from '../tool.js';

export const analysisTools = [
  defineTool({
    name: 'listAnalysisSessions',
    title: "List an endpoint's AI analysis sessions",
    description:
      "The AI planner's analyses of an endpoint, newest first: reasoning, tools called, tokens, duration, " +
      'when it looks again and the failure count it saw (failed and skipped analyses say why).',
    input: z.strictObject({ id: idArg('endpoint'), ...listAnalysisSessionsQuery.shape }),
    output: asOutput(analysisSessionsPage),
    annotations: READ_ONLY,
    run: (api, { id, ...query }) => api.listAnalysisSessions(id, query),
    summarize: (page) => `${page.sessions.length} of ${page.total} analysis sessions.`,
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
    run: (api, args) => api.getAnalysisSession(args.id),
    summarize: (session) =>
      `Analysis ${session.id} ${session.status}: ${session.toolsCalled.length} tool calls, ` +
      `${session.actionsApplied.filter((action) => action.applied).length} changes applied.` +
      (session.reasoning ? `\n${session.reasoning}` : ''),
  }),
];
