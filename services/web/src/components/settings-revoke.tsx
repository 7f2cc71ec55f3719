/**
 * A row's "Revoke" button: asks first (window.confirm), shows progress and the API's error beside it.
 * Its accessible name carries the row's name ("Revoke Deploy pipeline"): a screen reader's list of
 * buttons tells the rows apart. Once the row is gone, focus goes to `afterRevoke` (the section).
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { ActionButton } from './action-button';

export function RevokeButton({
  question,
  revoke,
  invalidates,
  itemName,
  afterRevoke,
}: {
  question: string;
  revoke: () => Promise<unknown>;
  /** The list to refetch once revoked. */
  invalidates: QueryKey;
  /** The row's name, read after "Revoke" (the button shows "Revoke"; its name starts with that, WCAG 2.5.3). */
  itemName: string;
  afterRevoke?: () => void;
}) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: revoke,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: invalidates });
      afterRevoke?.();
    },
  });
  return (
    <>
      <ActionButton
        className="danger"
        onClick={() => {
          if (window.confirm(question)) mutation.mutate();
        }}
        busy={mutation.isPending}
        aria-label={`${mutation.isPending ? 'Revoking…' : 'Revoke'} ${itemName}`}
      >
        {mutation.isPending ? 'Revoking…' : 'Revoke'}
      </ActionButton>
      {mutation.error ? (
        <span className="form-error settings-row-error" role="alert">
          {mutation.error.message}
        </span>
      ) : null}
    </>
  );
}
