export { AnalysisTools, type AnalysisToolsOptions, type ToolResult } from './analysis-tools.js';
export { loadPlannerConfig, type PlannerConfig } from './config.js';
export { createModelClient, describeModelError, type AnalysisFailure, type ModelSettings } from './model.js';
export { Planner, type PlannerOptions, type PlannerOutcome } from './planner.js';
export { runToolLoop, type TokenUsage, type ToolLoopOptions, type ToolLoopOutcome } from './tool-loop.js';
