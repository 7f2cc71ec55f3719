export { loadSchedulerConfig, type SchedulerConfig } from './config.js';
export { Reconciler, type ReconcileReport } from './reconcile.js';
export { Scheduler, type RecomputeResult, type SchedulerOptions } from './scheduler.js';
