export { loadExecutorConfig, type ExecutorConfig } from './config.js';
export { executePlannedRun, executeTestRun, type PlannedRunResult, type SkipReason } from './run-execution.js';
export { Executor, type ExecutorOptions } from './queue-workers.js';
