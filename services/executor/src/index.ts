export { loadExecutorConfig, type ExecutorConfig } from './config.js';
export { executePlannedRun, executeTestRun, type PlannedRunResult, type SkipReason } from './execute.js';
export { Executor, type ExecutorOptions } from './executor.js';
