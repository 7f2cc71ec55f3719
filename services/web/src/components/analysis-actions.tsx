/**
 * An analysis session's proposals with the governor's decision on each, and the tools the planner
 * called in order (write tools open to their input and result; read tools' outputs are not kept).
 */
import { Fragment } from 'react';
import type { Schemas } from '../api/client';
import {
  describeActionResult,
  describeParams,
  describeTool,
  humaniseTimes,
  matchActions,
  VERDICT_BADGE,
} from './analysis-format';

type Action = Schemas['PlannerAction'];

function VerdictBadge({ action }: { action: Action }) {
  const { verdict, label } = describeActionResult(action.result, action.applied);
  return <span className={`badge ${VERDICT_BADGE[verdict]}`}>{label}</span>;
}

function ActionDetails({ action }: { action: Action }) {
  const params = describeParams(action.params);
  return (
    <>
      <p className="analysis-governor">
        <strong>Governor:</strong> {humaniseTimes(describeActionResult(action.result, action.applied).detail)}
      </p>
      {params.length > 0 ? (
        <dl className="facts" aria-label="The planner's input">
          {params.map((param) => (
            <Fragment key={param.key}>
              <dt>{param.label}</dt>
              <dd>{param.value}</dd>
            </Fragment>
          ))}
        </dl>
      ) : null}
    </>
  );
}

export function AnalysisActions({ session }: { session: Schemas['AnalysisSession'] }) {
  if (session.actionsApplied.length === 0) {
    return (
      <p className="muted">
        {session.status === 'completed'
          ? 'The planner proposed no change: the endpoint keeps its schedule.'
          : 'No proposals: the analysis did not complete.'}
      </p>
    );
  }
  return (
    <ol className="analysis-actions">
      {session.actionsApplied.map((action, index) => (
        <li key={index} className="analysis-action">
          <div className="analysis-action-head">
            <code>{action.tool}</code> <span>{describeTool(action.tool).text}</span> <VerdictBadge action={action} />
          </div>
          <ActionDetails action={action} />
        </li>
      ))}
    </ol>
  );
}

export function AnalysisToolsCalled({ session }: { session: Schemas['AnalysisSession'] }) {
  if (session.toolsCalled.length === 0) return <p className="muted">The planner called no tools.</p>;
  const matches = matchActions(session.toolsCalled, session.actionsApplied);
  return (
    <ol className="analysis-tools">
      {session.toolsCalled.map((tool, index) => {
        const actionIndex = matches[index];
        const action = actionIndex == null ? undefined : session.actionsApplied[actionIndex];
        const { text } = describeTool(tool);
        if (!action) {
          return (
            <li key={index}>
              <code>{tool}</code> <span className="muted">{text} (read tool: its output is not recorded)</span>
            </li>
          );
        }
        return (
          <li key={index}>
            <details>
              <summary>
                <code>{tool}</code> {text} <VerdictBadge action={action} />
              </summary>
              <h3 className="analysis-tool-heading">Input</h3>
              <pre>{JSON.stringify(action.params, null, 2)}</pre>
              <h3 className="analysis-tool-heading">Result</h3>
              <p>{action.result}</p>
            </details>
          </li>
        );
      })}
    </ol>
  );
}
