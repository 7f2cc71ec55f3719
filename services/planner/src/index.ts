export { AnalysisTools, type AnalysisToolsOptions, type ToolCall, type ToolResult } from './analysis-tools.js';
export { loadPlannerConfig, type PlannerConfig } from './config.js';
export { createModelClient, describeModelError, type AnalysisFailure, type ModelSettings } from './model.js';
export { Planner, type PlannerOptions, type PlannerOutcome } from './planner.js';
export { MODEL_PAUSE_DEFAULTS, ModelPause, type ModelPauseSettings } from './model-pause.js';
export {
  runToolLoop,
  type LoopRecord,
  type TokenBudget,
  type ToolLoopOptions,
  type ToolLoopOutcome,
} from './tool-loop.js';
