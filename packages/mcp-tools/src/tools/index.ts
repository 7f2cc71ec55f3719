import type { KairosTool } from '../tool.js';
import { analysisTools } from './analysis.js';
import { endpointTools } from './endpoints.js';
import { hostLimitTools } from './host-limits.js';
import { jobTools } from './jobs.js';
import { notificationTools } from './notifications.js';
import { runTools } from './runs.js';
import { schedulingTools } from './scheduling.js';
import { signingKeyTools } from './signing-keys.js';

/** Every tool of the Kairos MCP server, in the order they are listed. */
export const KAIROS_TOOLS: readonly KairosTool[] = [
  ...jobTools,
  ...endpointTools,
  ...schedulingTools,
  ...runTools,
  ...analysisTools,
  ...signingKeyTools,
  ...notificationTools,
  ...hostLimitTools,
];

export const KAIROS_TOOL_NAMES: readonly string[] = KAIROS_TOOLS.map((tool) => tool.name);
