export { createHttpExecutor } from './http-call.js';
export { EgressBlockedError, classifyAddress, createEgressGuard } from './egress-guard.js';
export type { EgressGuard } from './egress-guard.js';
export type {
  EgressPolicy,
  ExecutionContext,
  HttpErrorKind,
  HttpExecutor,
  HttpExecutorOptions,
  HttpMethod,
  HttpOutcome,
  HttpRequestSpec,
  ResponseFormat,
  TraceHeaders,
} from './types.js';
