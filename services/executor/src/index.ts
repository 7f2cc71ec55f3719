export { loadExecutorConfig, type ExecutorConfig } from './config.js';
export { executeDueRun, executeTestRun, type DueRunResult, type SkipReason } from './execute.js';
export { Executor, type ExecutorOptions } from './executor.js';
