/** A row's "Revoke" button: asks first (window.confirm), shows progress and the API's error beside it. */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';

export function RevokeButton({
  question,
  revoke,
  invalidates,
}: {
  question: string;
  revoke: () => Promise<unknown>;
  /** The list to refetch once revoked. */
  invalidates: QueryKey;
}) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: revoke,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: invalidates }),
  });
  return (
    <>
      <button
        type="button"
        className="danger"
        onClick={() => {
          if (window.confirm(question)) mutation.mutate();
        }}
        disabled={mutation.isPending}
      >
        {mutation.isPending ? 'Revoking…' : 'Revoke'}
      </button>
      {mutation.error ? (
        <span className="form-error settings-row-error" role="alert">
          {mutation.error.message}
        </span>
      ) : null}
    </>
  );
}
