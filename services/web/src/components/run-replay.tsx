/**
 * "Replay" on a run: runs the same request again as a new run (POST /api/runs/{id}/replay), linked
 * to this one by replayOf. The answer comes at once, with the new run's id; the run itself follows.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { ActionButton } from './action-button';
import { endpointKey } from './endpoint-queries';
import type { Run } from './run-format';

export function RunReplay({ run }: { run: Pick<Run, 'id' | 'endpointId'> }) {
  const queryClient = useQueryClient();
  const replay = useMutation({
    mutationFn: () => unwrap(api.POST('/api/runs/{runId}/replay', { params: { path: { runId: run.id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: endpointKey(run.endpointId) }),
  });
  return (
    <div className="run-replay">
      <ActionButton onClick={() => replay.mutate()} busy={replay.isPending}>
        Replay
      </ActionButton>
      {replay.error ? (
        <p className="form-error" role="alert">
          Not replayed: {replay.error.message}
        </p>
      ) : null}
      {replay.data ? (
        <p className="muted" role="status">
          Replay queued as a new run (source manual): <Link to={`/runs/${replay.data.runId}`}>view it</Link> once it
          ran.
        </p>
      ) : null}
    </div>
  );
}
