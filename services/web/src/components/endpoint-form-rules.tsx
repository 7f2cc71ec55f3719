/**
 * The rules editor of the endpoint form: when a run succeeds (statuses and conditions on the
 * response) and the response rules (name, when, then), each condition read back in words
 * ("backlog is greater than 100"). Errors are keyed by the API's field paths (rules-format.ts), so a
 * refusal from the API marks the same input as the browser's own checks do.
 */
import { useId, type ReactNode } from 'react';
import { DurationInput } from './endpoint-form-duration';
import type { SectionProps } from './endpoint-form-schedule';
import {
  CONDITION_OPS,
  buildRules,
  describeCondition,
  newConditionRow,
  newRuleRow,
  textToValue,
  type ConditionOp,
  type ConditionRow,
  type RuleRow,
  type RulesFormState,
  type Timing,
} from './rules-format';

export interface RulesContext {
  /** Endpoints of the same job a rule may run (not this one); empty: none to offer. */
  siblings: { id: string; name: string }[];
  /** Shown after the editor, e.g. the backtest (only for a saved endpoint). */
  after?: ReactNode;
}

type Issues = Record<string, string>;

/** An input with its error under it; marked invalid when `issues[field]` is set. */
function Control({
  field,
  issues,
  label,
  children,
}: {
  field: string;
  issues: Issues;
  label: string;
  children: (props: {
    id: string;
    'aria-label': string;
    'aria-invalid': true | undefined;
    'aria-describedby': string | undefined;
  }) => ReactNode;
}) {
  const id = useId();
  const error = issues[field];
  return (
    <span className={`rules-control${error ? ' field-invalid' : ''}`}>
      {children({
        id,
        'aria-label': label,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': error ? `${id}-error` : undefined,
      })}
      {error ? (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      ) : null}
    </span>
  );
}

function conditionWords(row: ConditionRow): string {
  if (row.path.trim() === '') return '';
  const takesValue = CONDITION_OPS.find((entry) => entry.op === row.op)?.takesValue ?? true;
  if (takesValue && row.value.trim() === '') return '';
  const value = takesValue ? textToValue(row.op, row.value.trim()) : undefined;
  return describeCondition({ path: row.path.trim(), op: row.op, ...(takesValue ? { value } : {}) });
}

function ConditionList({
  rows,
  field,
  name,
  issues,
  onChange,
  addLabel,
}: {
  rows: ConditionRow[];
  /** The API's field of the list, e.g. rules[0].when.all. */
  field: string;
  /** How a row is named, e.g. "Rule 1 condition". */
  name: string;
  issues: Issues;
  onChange: (rows: ConditionRow[]) => void;
  addLabel: string;
}) {
  const update = (index: number, patch: Partial<ConditionRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <>
      {rows.length > 0 ? (
        <ul className="rules-conditions">
          {rows.map((row, index) => {
            const at = `${field}[${index}]`;
            const label = `${name} ${index + 1}`;
            const words = conditionWords(row);
            const takesValue = CONDITION_OPS.find((entry) => entry.op === row.op)?.takesValue ?? true;
            return (
              <li key={row.key} className="rules-condition">
                <div className="rules-condition-inputs">
                  <Control field={`${at}.path`} issues={issues} label={`${label} path`}>
                    {(props) => (
                      <input
                        {...props}
                        className="endpoint-form-mono"
                        placeholder="$.backlog"
                        autoComplete="off"
                        spellCheck={false}
                        value={row.path}
                        onChange={(e) => update(index, { path: e.target.value })}
                      />
                    )}
                  </Control>
                  <Control field={`${at}.op`} issues={issues} label={`${label} operator`}>
                    {(props) => (
                      <select
                        {...props}
                        value={row.op}
                        onChange={(e) => update(index, { op: e.target.value as ConditionOp })}
                      >
                        {CONDITION_OPS.map((entry) => (
                          <option key={entry.op} value={entry.op}>
                            {entry.words}
                          </option>
                        ))}
                      </select>
                    )}
                  </Control>
                  {takesValue ? (
                    <Control field={`${at}.value`} issues={issues} label={`${label} value`}>
                      {(props) => (
                        <input
                          {...props}
                          className="endpoint-form-mono"
                          placeholder={row.op === 'matches' ? '^ok' : '100'}
                          autoComplete="off"
                          spellCheck={false}
                          value={row.value}
                          onChange={(e) => update(index, { value: e.target.value })}
                        />
                      )}
                    </Control>
                  ) : null}
                  <button
                    type="button"
                    aria-label={`Remove ${label.toLowerCase()}`}
                    onClick={() => onChange(rows.filter((_, i) => i !== index))}
                  >
                    Remove
                  </button>
                </div>
                {words ? <small className="muted rules-words">Reads: {words}</small> : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      <button type="button" onClick={() => onChange([...rows, newConditionRow()])}>
        {addLabel}
      </button>
    </>
  );
}

const TIMINGS: { value: Timing; label: string }[] = [
  { value: 'interval', label: 'Run at this interval while it matches' },
  { value: 'pause', label: 'Pause for' },
  { value: 'none', label: 'No interval or pause' },
];

function RuleEditor({
  row,
  index,
  issues,
  siblings,
  onChange,
  onRemove,
}: {
  row: RuleRow;
  index: number;
  issues: Issues;
  siblings: RulesContext['siblings'];
  onChange: (row: RuleRow) => void;
  onRemove: () => void;
}) {
  const at = `rules[${index}]`;
  const title = `Rule ${index + 1}`;
  const set = (patch: Partial<RuleRow>) => onChange({ ...row, ...patch });
  return (
    <li>
      <fieldset className="endpoint-form-group rules-rule">
        <legend>{row.name.trim() ? `${title}: ${row.name.trim()}` : title}</legend>
        <div className="rules-line">
          <Control field={`${at}.name`} issues={issues} label={`${title} name`}>
            {(props) => (
              <input
                {...props}
                placeholder="backlog high"
                maxLength={100}
                value={row.name}
                onChange={(e) => set({ name: e.target.value })}
              />
            )}
          </Control>
          <button type="button" aria-label={`Remove rule ${index + 1}`} onClick={onRemove}>
            Remove rule
          </button>
        </div>
        <p className="rules-subhead">When (every part given holds; nothing given: after every run)</p>
        <div className="rules-line">
          <Control field={`${at}.when.status`} issues={issues} label={`${title} statuses`}>
            {(props) => (
              <input
                {...props}
                placeholder="Any status (e.g. 2xx, 304)"
                autoComplete="off"
                value={row.status}
                onChange={(e) => set({ status: e.target.value })}
              />
            )}
          </Control>
          <Control field={`${at}.when.runStatus`} issues={issues} label={`${title} run outcome`}>
            {(props) => (
              <select
                {...props}
                value={row.runStatus}
                onChange={(e) => set({ runStatus: e.target.value as RuleRow['runStatus'] })}
              >
                <option value="">Succeeded or failed</option>
                <option value="success">The run succeeded</option>
                <option value="failed">The run failed</option>
              </select>
            )}
          </Control>
        </div>
        <p className="rules-subhead">All of these hold</p>
        <ConditionList
          rows={row.all}
          field={`${at}.when.all`}
          name={`${title} condition`}
          issues={issues}
          onChange={(all) => set({ all })}
          addLabel={`Add a condition to rule ${index + 1}`}
        />
        <p className="rules-subhead">And at least one of these (optional)</p>
        <ConditionList
          rows={row.any}
          field={`${at}.when.any`}
          name={`${title} any-of condition`}
          issues={issues}
          onChange={(any) => set({ any })}
          addLabel={`Add an any-of condition to rule ${index + 1}`}
        />
        <p className="rules-subhead">Then</p>
        <div className="rules-line">
          <Control field={`${at}.then`} issues={issues} label={`${title} timing`}>
            {(props) => (
              <select {...props} value={row.timing} onChange={(e) => set({ timing: e.target.value as Timing })}>
                {TIMINGS.map((timing) => (
                  <option key={timing.value} value={timing.value}>
                    {timing.label}
                  </option>
                ))}
              </select>
            )}
          </Control>
          {row.timing !== 'none' ? (
            <Control
              field={`${at}.then.${row.timing === 'interval' ? 'intervalMs' : 'pauseMs'}`}
              issues={issues}
              label={`${title} ${row.timing === 'interval' ? 'interval' : 'pause'}`}
            >
              {(props) => (
                <DurationInput
                  {...props}
                  value={row.duration}
                  unitLabel={`${props['aria-label']} unit`}
                  placeholder="1"
                  onChange={(duration) => set({ duration })}
                />
              )}
            </Control>
          ) : null}
        </div>
        <div className="rules-line">
          <Control field={`${at}.then.runEndpoint`} issues={issues} label={`${title} runs another endpoint`}>
            {(props) =>
              siblings.length > 0 || row.runEndpoint === '' ? (
                <select {...props} value={row.runEndpoint} onChange={(e) => set({ runEndpoint: e.target.value })}>
                  <option value="">Run no other endpoint</option>
                  {siblings.map((sibling) => (
                    <option key={sibling.id} value={sibling.id}>
                      Run {sibling.name} once now
                    </option>
                  ))}
                  {row.runEndpoint !== '' && !siblings.some((sibling) => sibling.id === row.runEndpoint) ? (
                    <option value={row.runEndpoint}>Run endpoint {row.runEndpoint}</option>
                  ) : null}
                </select>
              ) : (
                <input
                  {...props}
                  placeholder="Endpoint id of the same job"
                  value={row.runEndpoint}
                  onChange={(e) => set({ runEndpoint: e.target.value })}
                />
              )
            }
          </Control>
          <label className="choice">
            <input type="checkbox" checked={row.analyse} onChange={(e) => set({ analyse: e.target.checked })} />
            Start a planner analysis
          </label>
        </div>
      </fieldset>
    </li>
  );
}

export function RulesFields({ state, set, errors, context }: SectionProps & { context?: RulesContext | undefined }) {
  const rules = state.responseRules;
  const issues = errors.ruleFields ?? {};
  const setRules = (patch: Partial<RulesFormState>) => set({ responseRules: { ...rules, ...patch } });
  const summary = buildRules(rules);
  return (
    <>
      <fieldset className="endpoint-form-group rules-editor">
        <legend>When a run succeeds</legend>
        <p className="muted">
          Optional. By default a run succeeds on HTTP 2xx and 3xx. List the statuses that may succeed and the conditions
          the response must meet; a run that fails one is failed (assertion_failed) and counts for backoff, auto-pause
          and notifications. Paths read the JSON body: <code>$.backlog</code>, <code>$.items[0].id</code>,{' '}
          <code>$</code> (the whole body, or a text body), <code>$status</code>, <code>$durationMs</code>.
        </p>
        <div className="rules-line">
          <Control field="successWhen.status" issues={issues} label="Statuses that may succeed">
            {(props) => (
              <input
                {...props}
                placeholder="2xx, 3xx (default)"
                autoComplete="off"
                value={rules.successStatus}
                onChange={(e) => setRules({ successStatus: e.target.value })}
              />
            )}
          </Control>
        </div>
        <ConditionList
          rows={rules.successAll}
          field="successWhen.all"
          name="Success condition"
          issues={issues}
          onChange={(successAll) => setRules({ successAll })}
          addLabel="Add a success condition"
        />
      </fieldset>
      <fieldset className="endpoint-form-group rules-editor">
        <legend>Response rules</legend>
        <p className="muted">
          Optional, at most 20, checked in order after every run at no token cost. Every matching rule acts; the first
          interval wins and lasts while the rule keeps matching.
        </p>
        {rules.rules.length > 0 ? (
          <ol className="rules-list">
            {rules.rules.map((row, index) => (
              <RuleEditor
                key={row.key}
                row={row}
                index={index}
                issues={issues}
                siblings={context?.siblings ?? []}
                onChange={(next) => setRules({ rules: rules.rules.map((item, i) => (i === index ? next : item)) })}
                onRemove={() => setRules({ rules: rules.rules.filter((_, i) => i !== index) })}
              />
            ))}
          </ol>
        ) : null}
        <button type="button" onClick={() => setRules({ rules: [...rules.rules, newRuleRow()] })}>
          Add a rule
        </button>
        {summary.successWhen === null && summary.rules === null ? null : (
          <p className="muted rules-count">
            {summary.rules?.length ?? 0} rule{summary.rules?.length === 1 ? '' : 's'}
            {summary.successWhen ? ', and a success condition set' : ''}.
          </p>
        )}
      </fieldset>
      {context?.after}
    </>
  );
}
