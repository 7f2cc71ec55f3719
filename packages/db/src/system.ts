/**
 * `@kairos/db/system`: system-wide functions, not bound to one caller's account: the workers'
 * hot paths by endpoint or run id (executor: executions.ts, and notifications' state changes and
 * delivery; scheduler: schedule-state.ts; planner's claims), auth lookups by secret, session or
 * identity, the sweeps (reconcile, retention, partitions, expired device codes), account creation
 * and operator actions on any account. Importing this is the visible mark of a call that can reach
 * across tenants; api route handlers may import it only in the files eslint.config.js allows
 * (test/lint-rules.test.ts proves the rule).
 */
export { createAccount, type CreateAccountInput, type CreateAccountOptions, type CreatedAccount } from './accounts.js';
export {
  getAccountWithUsers,
  listAccounts,
  updateAccount,
  type AccountChange,
  type AccountWithUsers,
} from './account-admin.js';
export { countValuesUnderOldKeys, rotateMasterKey, type RotationProgress } from './master-key-rotation.js';
export {
  acceptInvitation,
  addMembership,
  findMemberRole,
  listAccountsOfUser,
  setSessionAccount,
  type AccountOfUser,
} from './memberships.js';
export { findApiKeyBySecret, revokeApiKeyAsOperator, touchApiKey } from './api-keys.js';
export {
  countPendingDeviceCodes,
  createDeviceCode,
  decideDeviceCode,
  deleteExpiredDeviceCodes,
  findAccessTokenBySecret,
  findPendingDeviceCode,
  pollDeviceCode,
  touchAccessToken,
  type DevicePoll,
} from './device-auth.js';
export { claimAnalysis, countFailedAnalysesInARow, pullAnalysisForward } from './analysis.js';
export * from './executions.js';
export {
  applyEndpointTransitions,
  claimQuotaNotices,
  confirmRecipient,
  listStalePendingNotifications,
  loadNotificationDelivery,
  raiseNotifications,
  recordNotificationAttempt,
  type DeliveryAttempt,
  type NotificationDelivery,
  type RaisedEvent,
} from './notifications.js';
export * from './schedule-state.js';
export * from './retention.js';
export * from './identity.js';
export * from './advisory-lock.js';
export * from './partitions.js';
