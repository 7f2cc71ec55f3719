/**
 * What a production api (NODE_ENV=production) refuses to start without, like KAIROS_MASTER_KEY:
 * - KAIROS_PUBLIC_URL: without it, sign-in redirect URIs and device-flow links follow the request's
 *   Host header, which a client chooses;
 * - KAIROS_METRICS_TOKEN: /metrics is served on the api's own port, the one the ingress publishes.
 * The process prints what is wrong and exits 78 (EX_CONFIG), as every refused configuration does.
 * Elsewhere both stay optional (development, tests).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { REDIS_URL } from '../../../test/env.mjs';
import { loadApiConfig } from '../src/config.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  KAIROS_MASTER_KEY: randomBytes(32).toString('hex'),
  REDIS_URL,
  KAIROS_WEB_DIR: '',
};
const PUBLIC_URL = 'https://kairos.example.test';
const METRICS_TOKEN = randomBytes(16).toString('hex');

describe('production configuration', () => {
  it('requires KAIROS_PUBLIC_URL and KAIROS_METRICS_TOKEN, naming each', () => {
    const load = (env: Record<string, string>) => () => loadApiConfig({ ...PRODUCTION, ...env } as NodeJS.ProcessEnv);
    expect(load({})).toThrow(/KAIROS_PUBLIC_URL: is required in production[^]*KAIROS_METRICS_TOKEN: is required/);
    expect(load({ KAIROS_METRICS_TOKEN: METRICS_TOKEN })).toThrow(/KAIROS_PUBLIC_URL: is required in production/);
    expect(load({ KAIROS_PUBLIC_URL: PUBLIC_URL })).toThrow(/KAIROS_METRICS_TOKEN: is required in production/);
    expect(load({ KAIROS_PUBLIC_URL: PUBLIC_URL, KAIROS_METRICS_TOKEN: METRICS_TOKEN })()).toMatchObject({
      KAIROS_PUBLIC_URL: PUBLIC_URL,
      KAIROS_METRICS_TOKEN: METRICS_TOKEN,
    });
  });

  it('leaves both optional outside production', () => {
    const config = loadApiConfig({ REDIS_URL } as NodeJS.ProcessEnv);
    expect(config.KAIROS_PUBLIC_URL).toBeUndefined();
    expect(config.KAIROS_METRICS_TOKEN).toBeUndefined();
  });

  it('stops the api process with exit code 78 and the reason', async () => {
    const root = join(import.meta.dirname, '../../..');
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'services/api/src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, ...PRODUCTION, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A process that started serving instead is stopped after 30 s (the test then fails on its code).
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    clearTimeout(timer);
    expect({ code, stderr }).toEqual({
      code: 78,
      stderr: expect.stringMatching(/KAIROS_PUBLIC_URL: is required in production/),
    });
  }, 60_000);
});
