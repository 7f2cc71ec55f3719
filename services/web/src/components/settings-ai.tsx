/**
 * Settings > AI features: the "Enable AI Scheduling" switch, shadow mode, the planner's pause of
 * model calls during a model outage, and the planner's token budget this month. Each checkbox saves
 * at once (PATCH /api/account/settings); while a save is pending the box shows the requested value
 * so the 3 s refetch cannot flip it back.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ACCOUNT_KEY, useAccount, type Account } from './settings-account';
import { formatDateTime } from '../lib/time';
import { QuotaMeter } from './settings-meter';
import { When } from './settings-section';
import { QueryView } from './states';
import { FormError } from './field';

type AiSettingsInput = Schemas['AccountSettingsInput'];

export function AiSettings() {
  const account = useAccount();
  return (
    <QueryView query={account} what="Loading AI features">
      {(data) => (
        <>
          <AiSwitches account={data} />
          <PlannerPauseNotice planner={data.aiPlanner} />
          <h3>AI budget</h3>
          <AiBudget budget={data.aiBudget} />
        </>
      )}
    </QueryView>
  );
}

function AiSwitches({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  // What the person just asked for, shown at once (the mutation's variables arrive a tick later,
  // so a checkbox bound to them flips back for a moment); cleared when the server has answered.
  const [requested, setRequested] = useState<AiSettingsInput>({});
  const save = useMutation({
    mutationFn: (change: AiSettingsInput) => unwrap(api.PATCH('/api/account/settings', { body: change })),
    onSuccess: (updated) => queryClient.setQueryData(ACCOUNT_KEY, updated),
    onSettled: () => {
      setRequested({});
      void queryClient.invalidateQueries({ queryKey: ACCOUNT_KEY });
    },
  });
  const change = (input: AiSettingsInput) => {
    setRequested(input);
    save.mutate(input);
  };
  const shown = { ...account.settings, ...requested };
  return (
    <>
      <Switch
        label="Enable AI Scheduling"
        checked={shown.aiSchedulingEnabled}
        disabled={save.isPending}
        onChange={(on) => change({ aiSchedulingEnabled: on })}
        hint="The planner analyses your endpoints' runs and sets short-lived hints, which the governor clamps. Off: schedules run on their baselines and hints already set expire on their TTL."
      />
      <Switch
        label="AI rules"
        checked={shown.aiRules}
        disabled={save.isPending}
        onChange={(on) => change({ aiRules: on })}
        hint="The planner writes response rules of its own from each endpoint's description: they run on every call at no token cost and wake the planner when something it could not foresee happens. Your rules always come first; the planner's lapse within 7 days unless an analysis renews them."
      />
      <Switch
        label="Shadow mode"
        checked={shown.aiShadowMode}
        disabled={save.isPending}
        onChange={(on) => change({ aiShadowMode: on })}
        hint="The planner proposes, nothing is applied: its proposals are recorded in the analysis sessions (marked shadow) so you can review them first."
      />
      <FormError message={save.error?.message} />
    </>
  );
}

function Switch(props: {
  label: string;
  hint: string;
  checked: boolean;
  disabled: boolean;
  onChange: (checked: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="settings-switch">
      {/* aria-disabled, not disabled, while saving: a disabled box would drop focus to the page body. */}
      <input
        type="checkbox"
        id={id}
        checked={props.checked}
        aria-disabled={props.disabled || undefined}
        onChange={(event) => {
          if (!props.disabled) props.onChange(event.target.checked);
        }}
        aria-describedby={`${id}-hint`}
      />
      <div>
        <label htmlFor={id}>{props.label}</label>
        <small id={`${id}-hint`} className="muted">
          {props.hint}
        </small>
      </div>
    </div>
  );
}

/** Shown while the planner does not call its model (it failed too often in a row): nothing is analysed. */
export function PlannerPauseNotice({ planner }: { planner: Account['aiPlanner'] }) {
  if (!planner.pausedUntil) return null;
  return (
    <p className="form-error" role="status">
      The planner has paused its model calls until <When iso={planner.pausedUntil} /> (
      {formatDateTime(planner.pausedUntil)}){planner.pauseReason ? `: ${planner.pauseReason}` : ''}. Runs are not
      analysed meanwhile; schedules run on their baselines.
    </p>
  );
}

function AiBudget({ budget }: { budget: Account['aiBudget'] }) {
  return (
    <>
      <QuotaMeter
        label="AI tokens used"
        used={budget.tokensUsed}
        limit={budget.tokensLimit}
        unit="tokens"
        suffix="this month"
      />
      <p className="muted">
        The budget resets <When iso={budget.periodEndsAt} /> ({formatDateTime(budget.periodEndsAt)}).
      </p>
      {budget.exhausted ? (
        <p className="form-error">
          The budget is used up: the planner stops analysing until it resets; schedules run on their baselines.
        </p>
      ) : null}
    </>
  );
}
