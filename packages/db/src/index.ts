/**
 * `@kairos/db`: the tenant-scoped data layer. Every function here takes the caller's account id
 * (or a record carrying it) and touches only that account's rows. System-wide functions (workers,
 * auth lookups, sweeps, operator actions) are in `@kairos/db/system` (./system.ts), so a call site
 * that can reach across accounts says so in its import. Also: the client and Prisma's types.
 */
export * from './client.js';
export * from './generated/prisma/client.js';
export { getAccount } from './accounts.js';
export {
  createSecret,
  deleteSecret,
  listSecrets,
  loadEncryptedSecrets,
  updateSecret,
  type SecretInfo,
} from './secrets.js';
export {
  createInvitation,
  deleteInvitation,
  getMember,
  listInvitations,
  listMembers,
  removeMember,
  setMemberRole,
  INVITATION_TTL_MS,
  type InvitationInfo,
  type Member,
} from './memberships.js';
export {
  countActiveEndpoints,
  countActiveJobs,
  countRunsSince,
  getAccountUsage,
  type AccountUsage,
} from './account-admin.js';
export { chargeAiTokens, reserveAiTokens } from './ai-budget.js';
export { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
export { listAccessTokens, revokeAccessToken } from './device-auth.js';
export {
  getAnalysisSession,
  listAnalysisSessions,
  listRecentRuns,
  listResponseHistory,
  loadAnalysisGate,
  loadPlannerContext,
  loadSiblingSnapshots,
  recordAnalysisSession,
  updateAccountAiSettings,
  type AnalysisGateRow,
  type NewAnalysisSession,
  type PlannerActionEntry,
  type PlannerContextData,
  type SiblingSnapshot,
} from './analysis.js';
export * from './endpoints.js';
export * from './jobs.js';
export * from './runs.js';
export * from './scheduling.js';
export * from './signing-keys.js';
export * from './dashboard.js';
export * from './audit.js';
export {
  createNotificationChannel,
  deleteNotificationChannel,
  getNotificationChannel,
  listNotificationChannels,
  listNotifications,
  listVerifiedUserEmails,
  raiseEndpointEvent,
  raiseTestNotification,
  type EmailRecipientsPlan,
} from './notifications.js';
export {
  applyConfigOperations,
  loadConfigState,
  withConfigTransaction,
  type AppliedConfig,
  type ApplyContext,
  type ChannelRecipients,
  type ConfigAuditEvent,
} from './config.js';
