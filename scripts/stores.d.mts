// Types of scripts/stores.mjs for scripts/kairos.ts and the tests.
export const EX_CONFIG: number;
export const DEFAULT_DATABASE_URL: string;
export const DEFAULT_REDIS_URL: string;
export class StoresRefused extends Error {}
export function homeOf(env?: NodeJS.ProcessEnv): string;
export function redact(url: string): string;
export function answers(url: string, defaultPort: number, timeoutMs?: number): Promise<boolean>;
export type StorePlan = { kind: 'external'; url: string; source: string } | { kind: 'embedded' };
export function planStores(
  env?: NodeJS.ProcessEnv,
): Promise<{ mode: 'auto' | 'embedded' | 'external'; postgres: StorePlan; redis: StorePlan }>;
export function findPostgres(env?: NodeJS.ProcessEnv): { initdb: string; postgres: string; dir: string } | undefined;
export function findRedis(env?: NodeJS.ProcessEnv): string | undefined;
export function runningEmbeddedStores(env?: NodeJS.ProcessEnv): { DATABASE_URL?: string; REDIS_URL?: string };
