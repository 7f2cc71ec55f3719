/**
 * The account's members and invitations. Reading the members is for every member; changing them is
 * for admins (the route registry's roles), and ownership (making, demoting or removing an owner,
 * inviting one) for owners. An account keeps at least one owner (packages/db/src/memberships.ts).
 * Invitations are one-time links valid 7 days; only the SHA-256 of their token is stored; the
 * invited user accepts with POST /api/invitations/accept (routes/auth.ts). With SMTP configured the
 * link is also mailed to the address, by the executors' notification worker (the link sealed in the
 * queued job), within the account's confirmation-mail limit.
 */
import { AppError, MEMBER_ROLES, encryptSecret, generateSecret, roleAtLeast, type MemberRole } from '@kairos/core';
import {
  createInvitation,
  deleteInvitation,
  getMember,
  listInvitations,
  listMembers,
  removeMember,
  setMemberRole,
  type InvitationInfo,
  type Member,
} from '@kairos/db';
import { createNotificationQueue, type NotificationQueue } from '@kairos/queue';
import { z } from 'zod';
import { audit } from '../audit.js';
import { CONFIRMATION_MAILS, spendAccountBucket } from '../notification-recipients.js';
import type { AuthContext } from '../auth/context.js';
import type { RouteRegistry } from '../http/route.js';
import { TOTAL_COUNT_HEADER, errorResponses, isoOrNull, isoTime } from './common.js';
import type { ApiDeps } from './deps.js';

const role = z.enum(MEMBER_ROLES).meta({
  description: 'owner: everything; admin: all but ownership; editor: jobs, endpoints, scheduling, runs; viewer: reads',
});

const memberRecord = z
  .object({ userId: z.string(), email: z.string(), name: z.string().nullable(), role, createdAt: isoTime })
  .meta({ id: 'Member' });

const invitationRecord = z
  .object({
    id: z.string(),
    email: z.string(),
    role,
    expiresAt: isoTime,
    createdAt: isoTime,
    acceptedAt: isoTime.nullable(),
  })
  .meta({ id: 'Invitation' });

const createdInvitation = invitationRecord
  .extend({
    token: z.string().meta({ description: 'The one-time token (POST /api/invitations/accept). Shown only now' }),
    emailed: z.boolean().meta({
      description: 'true: the link is also sent to the address by e-mail (the server has SMTP settings)',
    }),
    acceptUrl: z.string().meta({ description: 'The link to hand to the invited person. Shown only now' }),
  })
  .meta({ id: 'CreatedInvitation' });

const toMember = (member: Member) => ({ ...member, createdAt: member.createdAt.toISOString() });
const toInvitation = (invitation: InvitationInfo) => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  expiresAt: invitation.expiresAt.toISOString(),
  createdAt: invitation.createdAt.toISOString(),
  acceptedAt: isoOrNull(invitation.acceptedAt),
});

/** Ownership is the owners' own: 403 as the role gate answers. */
function requireOwnerFor(auth: AuthContext, what: string): void {
  if (!roleAtLeast(auth.role, 'owner')) {
    throw new AppError('FORBIDDEN', `${what} needs the owner role; you are ${auth.role}`, {
      role: auth.role,
      requiredRole: 'owner',
      scope: auth.scope,
    });
  }
}

export function registerMemberRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  let mailQueue: NotificationQueue | null = null;
  const tags = ['Members'];
  const forget = (userId: string) => {
    deps.apiKeys.evictUser(userId);
    deps.accessTokens.evictUser(userId);
  };

  routes.add(
    {
      method: 'get',
      path: '/api/account/members',
      operationId: 'listMembers',
      summary: "List the account's members and their roles",
      tags,
      responses: {
        200: {
          description: 'Owners first',
          schema: z.array(memberRecord),
          headers: { [TOTAL_COUNT_HEADER]: 'Number of members' },
        },
        ...errorResponses(),
      },
    },
    async ({ auth }) => {
      const members = await listMembers(deps.db, auth.accountId);
      return { body: members.map(toMember), headers: { [TOTAL_COUNT_HEADER]: String(members.length) } };
    },
  );

  routes.add(
    {
      method: 'patch',
      path: '/api/account/members/:userId',
      role: 'admin',
      operationId: 'updateMember',
      summary: "Change a member's role",
      description:
        'Making or unmaking an owner needs the owner role. The last owner cannot be demoted (409). ' +
        "The member's keys and tokens act with the new role at once in this process (within the auth cache elsewhere).",
      tags,
      body: z.strictObject({ role }).meta({ id: 'UpdateMemberInput' }),
      responses: { 200: { description: 'The member', schema: memberRecord }, ...errorResponses(400, 404, 409) },
    },
    async ({ auth, params, body }) => {
      const userId = params.userId!;
      const current = await getMember(deps.db, auth.accountId, userId);
      if (!current) throw new AppError('NOT_FOUND', 'member not found', { id: userId });
      if (current.role === 'owner' || body.role === 'owner') requireOwnerFor(auth, 'changing ownership');
      const change = await setMemberRole(deps.db, auth.accountId, userId, body.role);
      if (!change) throw new AppError('NOT_FOUND', 'member not found', { id: userId });
      forget(userId);
      if (change.before !== change.after) {
        await audit(
          deps,
          auth,
          'member.role_changed',
          { type: 'user', id: userId },
          { email: current.email, before: { role: change.before }, after: { role: change.after } },
        );
      }
      return { body: toMember({ ...current, role: change.after }) };
    },
  );

  routes.add(
    {
      method: 'delete',
      path: '/api/account/members/:userId',
      role: 'admin',
      operationId: 'removeMember',
      summary: 'Remove a member from the account',
      description:
        'Their sessions, keys and tokens stop acting for this account. Removing an owner needs the owner role; the last owner stays (409).',
      tags,
      responses: {
        200: {
          description: 'The removed member',
          schema: z.object({ success: z.literal(true), member: memberRecord }).meta({ id: 'RemoveMemberResult' }),
        },
        ...errorResponses(404, 409),
      },
    },
    async ({ auth, params }) => {
      const userId = params.userId!;
      const current = await getMember(deps.db, auth.accountId, userId);
      if (!current) throw new AppError('NOT_FOUND', 'member not found', { id: userId });
      if (current.role === 'owner') requireOwnerFor(auth, 'removing an owner');
      const removed = await removeMember(deps.db, auth.accountId, userId);
      if (!removed) throw new AppError('NOT_FOUND', 'member not found', { id: userId });
      forget(userId);
      await audit(
        deps,
        auth,
        'member.removed',
        { type: 'user', id: userId },
        { email: current.email, before: { role: current.role }, after: null },
      );
      return { body: { success: true, member: toMember(current) } };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/account/invitations',
      role: 'admin',
      operationId: 'createInvitation',
      summary: 'Invite someone to the account',
      description:
        'Answers a one-time link (valid 7 days; Cache-Control: no-store): whoever opens it signed in joins with the role. ' +
        'Inviting an owner needs the owner role. With SMTP configured on the server the link is also sent to the ' +
        "address by e-mail (emailed: true), within the account's limit of confirmation mails (429 beyond it).",
      tags,
      body: z.strictObject({ email: z.email(), role }).meta({ id: 'CreateInvitationInput' }),
      responses: {
        201: { description: 'The invitation and its link', schema: createdInvitation },
        ...errorResponses(400, 429),
      },
    },
    async ({ auth, body, res }) => {
      if (body.role === 'owner') requireOwnerFor(auth, 'inviting an owner');
      const emailed = Boolean(deps.config.KAIROS_SMTP_URL);
      if (emailed) await spendAccountBucket(deps, res, auth.accountId, 'invitation-mails', CONFIRMATION_MAILS, 1);
      const secret = generateSecret('kinv');
      const invitation = await createInvitation(deps.db, auth.accountId, {
        email: body.email,
        role: body.role as MemberRole,
        tokenHash: secret.hash,
        invitedByUserId: auth.userId,
        now: deps.now(),
      });
      await audit(
        deps,
        auth,
        'invitation.created',
        { type: 'invitation', id: invitation.id },
        { email: invitation.email, role: invitation.role },
      );
      const base = deps.config.KAIROS_PUBLIC_URL?.replace(/\/+$/, '') ?? '';
      if (emailed) {
        // The mail's link must be absolute: the public URL, else this server's own address.
        const mailBase = base || `http://localhost:${deps.config.PORT}`;
        const inviter = auth.userId ? await getMember(deps.db, auth.accountId, auth.userId) : null;
        mailQueue ??= createNotificationQueue(deps.redis, deps.config.KAIROS_QUEUE_PREFIX);
        await mailQueue.enqueueInvitationMail({
          invitationId: invitation.id,
          email: invitation.email,
          role: invitation.role,
          invitedBy: inviter ? (inviter.name ?? inviter.email) : null,
          sealedUrl: encryptSecret(`${mailBase}/invitations/accept#token=${secret.raw}`, deps.masterKey),
          expiresAt: invitation.expiresAt.toISOString(),
        });
      }
      return {
        status: 201,
        body: {
          ...toInvitation(invitation),
          token: secret.raw,
          emailed,
          acceptUrl: `${base}/invitations/accept#token=${secret.raw}`,
        },
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/account/invitations',
      role: 'admin',
      operationId: 'listInvitations',
      summary: "List the account's pending invitations (expired ones too)",
      tags,
      responses: {
        200: {
          description: 'Newest first',
          schema: z.array(invitationRecord),
          headers: { [TOTAL_COUNT_HEADER]: 'Number of invitations' },
        },
        ...errorResponses(),
      },
    },
    async ({ auth }) => {
      const invitations = await listInvitations(deps.db, auth.accountId);
      return { body: invitations.map(toInvitation), headers: { [TOTAL_COUNT_HEADER]: String(invitations.length) } };
    },
  );

  routes.add(
    {
      method: 'delete',
      path: '/api/account/invitations/:invitationId',
      role: 'admin',
      operationId: 'deleteInvitation',
      summary: 'Revoke an invitation (its link stops working)',
      tags,
      responses: {
        200: {
          description: 'The revoked invitation',
          schema: z
            .object({ success: z.literal(true), invitation: invitationRecord })
            .meta({ id: 'DeleteInvitationResult' }),
        },
        ...errorResponses(404),
      },
    },
    async ({ auth, params }) => {
      const invitation = await deleteInvitation(deps.db, auth.accountId, params.invitationId!);
      if (!invitation) throw new AppError('NOT_FOUND', 'invitation not found', { id: params.invitationId });
      await audit(
        deps,
        auth,
        'invitation.revoked',
        { type: 'invitation', id: invitation.id },
        { email: invitation.email },
      );
      return { body: { success: true, invitation: toInvitation(invitation) } };
    },
  );
}
