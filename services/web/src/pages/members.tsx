/**
 * Members: who belongs to the account and with which role; admins and owners change roles, remove
 * members, invite (the answer's one-time link is shown once, and mailed when the server can) and
 * revoke pending invitations. Ownership (an owner's role, inviting an owner) is the owners'; the
 * API keeps at least one owner and says so when a change would leave none.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api/client';
import { ActionButton } from '../components/action-button';
import { Field, FormError } from '../components/field';
import { PageHeading, usePageTitle } from '../components/page-title';
import { When } from '../components/settings-section';
import { Empty, QueryView } from '../components/states';
import { roleAtLeast, useMemberRole, type MemberRole } from '../lib/roles';
import { SESSION_KEY, useSession } from '../lib/session';

type Member = Schemas['Member'];
type Invitation = Schemas['Invitation'];
type CreatedInvitation = Schemas['CreatedInvitation'];

const MEMBERS = ['members'] as const;
const INVITATIONS = ['invitations'] as const;
export const ROLES: { role: MemberRole; label: string }[] = [
  { role: 'viewer', label: 'Viewer (reads)' },
  { role: 'editor', label: 'Editor (jobs, endpoints, runs)' },
  { role: 'admin', label: 'Admin (all but ownership)' },
  { role: 'owner', label: 'Owner (everything)' },
];

export function MembersPage() {
  usePageTitle('Members');
  const role = useMemberRole();
  const manages = roleAtLeast(role, 'admin');
  const members = useQuery({ queryKey: MEMBERS, queryFn: () => unwrap(api.GET('/api/account/members')) });
  return (
    <>
      <div className="page-header">
        <PageHeading>Members</PageHeading>
      </div>
      <section className="panel" aria-labelledby="members-title">
        <h2 id="members-title">People in this account</h2>
        <QueryView query={members} what="Loading members">
          {(list) => <MemberTable members={list} manages={manages} isOwner={role === 'owner'} />}
        </QueryView>
      </section>
      {manages ? (
        <>
          <section className="panel" aria-labelledby="invite-title">
            <h2 id="invite-title">Invite someone</h2>
            <InviteForm isOwner={role === 'owner'} />
          </section>
          <section className="panel" aria-labelledby="invitations-title">
            <h2 id="invitations-title">Pending invitations</h2>
            <Invitations />
          </section>
        </>
      ) : (
        <p className="muted">Only admins and owners change members and send invitations.</p>
      )}
    </>
  );
}

function MemberTable({ members, manages, isOwner }: { members: Member[]; manages: boolean; isOwner: boolean }) {
  const me = useSession().data?.user.id;
  return (
    <table>
      <caption className="visually-hidden">Members</caption>
      <thead>
        <tr>
          <th scope="col">Member</th>
          <th scope="col">Role</th>
          <th scope="col">Since</th>
          {manages ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      <tbody>
        {members.map((member) => (
          <tr key={member.userId}>
            <th scope="row">
              {member.name ?? member.email}
              {member.name ? <div className="muted">{member.email}</div> : null}
              {member.userId === me ? <span className="muted"> (you)</span> : null}
            </th>
            <td>
              {manages && (isOwner || member.role !== 'owner') ? (
                <RoleSelect member={member} isOwner={isOwner} />
              ) : (
                member.role
              )}
            </td>
            <td>
              <When iso={member.createdAt} />
            </td>
            {manages ? (
              <td>
                {isOwner || member.role !== 'owner' ? (
                  <RemoveMember member={member} self={member.userId === me} />
                ) : null}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RoleSelect({ member, isOwner }: { member: Member; isOwner: boolean }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (role: MemberRole) =>
      unwrap(
        api.PATCH('/api/account/members/{userId}', { params: { path: { userId: member.userId } }, body: { role } }),
      ),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: MEMBERS });
      await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    },
  });
  return (
    <>
      <select
        aria-label={`Role of ${member.email}`}
        value={member.role}
        disabled={change.isPending}
        onChange={(event) => change.mutate(event.target.value as MemberRole)}
      >
        {ROLES.filter(({ role }) => isOwner || role !== 'owner').map(({ role, label }) => (
          <option key={role} value={role}>
            {label}
          </option>
        ))}
      </select>
      {change.error ? (
        <span className="form-error settings-row-error" role="alert">
          {change.error.message}
        </span>
      ) : null}
    </>
  );
}

function RemoveMember({ member, self }: { member: Member; self: boolean }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/api/account/members/{userId}', { params: { path: { userId: member.userId } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: MEMBERS });
      if (self) await queryClient.invalidateQueries();
    },
  });
  return (
    <>
      <ActionButton
        className="danger"
        busy={remove.isPending}
        aria-label={`Remove ${member.email}`}
        onClick={() => {
          const question = self
            ? 'Leave this account? You lose access to it at once.'
            : `Remove ${member.email} from this account? They lose access at once.`;
          if (window.confirm(question)) remove.mutate();
        }}
      >
        {self ? 'Leave' : 'Remove'}
      </ActionButton>
      {remove.error ? (
        <span className="form-error settings-row-error" role="alert">
          {remove.error.message}
        </span>
      ) : null}
    </>
  );
}

function InviteForm({ isOwner }: { isOwner: boolean }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('editor');
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const invite = useMutation({
    mutationFn: () => unwrap(api.POST('/api/account/invitations', { body: { email: email.trim(), role } })),
    onSuccess: (invitation) => {
      setCreated(invitation);
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: INVITATIONS });
    },
  });
  const error = invite.error instanceof ApiError ? invite.error : null;
  const fieldErrors = error?.fieldErrors() ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    invite.mutate();
  };
  return (
    <>
      <form onSubmit={submit} noValidate>
        <Field label="E-mail address" error={fieldErrors.email}>
          <input type="email" value={email} onChange={(event) => setEmail(event.target.value)} autoComplete="off" />
        </Field>
        <Field label="Role" error={fieldErrors.role}>
          <select value={role} onChange={(event) => setRole(event.target.value as MemberRole)}>
            {ROLES.filter((option) => isOwner || option.role !== 'owner').map((option) => (
              <option key={option.role} value={option.role}>
                {option.label}
              </option>
            ))}
          </select>
        </Field>
        <div className="actions">
          <ActionButton type="submit" className="primary" busy={invite.isPending}>
            {invite.isPending ? 'Inviting…' : 'Invite'}
          </ActionButton>
        </div>
        <FormError message={invite.error && !fieldErrors.email && !fieldErrors.role ? invite.error.message : null} />
      </form>
      {created ? (
        <div className="notice" role="status">
          <p>
            Invitation for {created.email} as {created.role}, valid until <When iso={created.expiresAt} />.{' '}
            {created.emailed ? 'It was also sent by e-mail. ' : ''}Hand over this link (shown only now): whoever opens
            it signed in joins the account.
          </p>
          <input
            readOnly
            aria-label="Invitation link"
            value={absolute(created.acceptUrl)}
            onFocus={(event) => event.target.select()}
          />
        </div>
      ) : null}
    </>
  );
}

/** The API answers a path when the server has no public URL: the link is then this page's origin. */
function absolute(url: string): string {
  return /^https?:\/\//.test(url) ? url : `${window.location.origin}${url}`;
}

function Invitations() {
  const invitations = useQuery({ queryKey: INVITATIONS, queryFn: () => unwrap(api.GET('/api/account/invitations')) });
  return (
    <QueryView query={invitations} what="Loading invitations">
      {(list) =>
        list.length === 0 ? (
          <Empty title="No pending invitations." />
        ) : (
          <table>
            <caption className="visually-hidden">Pending invitations</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((invitation) => (
                <tr key={invitation.id}>
                  <th scope="row">{invitation.email}</th>
                  <td>{invitation.role}</td>
                  <td>
                    <When iso={invitation.expiresAt} />
                  </td>
                  <td>
                    <RevokeInvitation invitation={invitation} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </QueryView>
  );
}

function RevokeInvitation({ invitation }: { invitation: Invitation }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/api/account/invitations/{invitationId}', {
          params: { path: { invitationId: invitation.id } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INVITATIONS }),
  });
  return (
    <>
      <ActionButton
        className="danger"
        busy={revoke.isPending}
        aria-label={`Revoke the invitation for ${invitation.email}`}
        onClick={() => revoke.mutate()}
      >
        Revoke
      </ActionButton>
      {revoke.error ? (
        <span className="form-error settings-row-error" role="alert">
          {revoke.error.message}
        </span>
      ) : null}
    </>
  );
}
