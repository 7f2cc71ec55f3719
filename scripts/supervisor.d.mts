// Types of scripts/supervisor.mjs for its tests.
export interface RestartPolicyOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
  maxCrashes?: number;
  windowMs?: number;
}
export type RestartDecision =
  { action: 'restart'; crashes: number; delayMs: number } | { action: 'give-up'; crashes: number; windowMs: number };
export const DEFAULT_POLICY: Required<RestartPolicyOptions>;
export const DEFAULT_STOP_TIMEOUT_MS: number;
export function createRestartPolicy(options?: RestartPolicyOptions): { recordCrash(nowMs: number): RestartDecision };
export interface SupervisedService {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  stdio?: 'inherit' | 'ignore' | 'pipe' | Array<'ignore' | 'inherit' | 'pipe' | number>;
  uid?: number;
  gid?: number;
  /** Sent on stop instead of SIGTERM (PostgreSQL: SIGINT, its fast shutdown). */
  stopSignal?: NodeJS.Signals;
}
export function superviseServices(options: {
  services: SupervisedService[];
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  policy?: RestartPolicyOptions;
  stopTimeoutMs?: number;
  stdio?: 'inherit' | 'ignore' | 'pipe';
  cwd?: string;
}): { exited: Promise<number>; stop(code?: number): Promise<number>; pidOf(name: string): number | undefined };
