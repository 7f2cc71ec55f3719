/**
 * `pnpm web:api` writes the typed API client's inputs (`@kairos/client`, used by the web UI, the MCP
 * tools and the CLI) from the api's route registry:
 *   packages/client/src/openapi.json  the OpenAPI 3.1 document served at /api/doc
 *   packages/client/src/schema.d.ts   TypeScript types generated from it by openapi-typescript
 * `pnpm web:api --check` (part of `pnpm test`) fails when either file is out of date, so no client
 * compiles against an API that no longer exists.
 *
 * Building the registry needs no database or Redis: connections are created lazily and never used.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase } from '@kairos/db';
import { createRedisConnection } from '@kairos/queue';
import { createLogger } from '@kairos/runtime';
import { createApp } from '../services/api/src/app.js';
import { ApiKeyAuthenticator } from '../services/api/src/auth/authenticate.js';
import { loadApiConfig } from '../services/api/src/config.js';
import { buildOpenApiDocument } from '../services/api/src/docs/openapi.js';
import type { ScheduleNotifier } from '../services/api/src/schedule-notifier.js';
import type { TestNow } from '../services/api/src/test-now.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const clientDir = join(root, 'packages/client');
const jsonPath = join(clientDir, 'src/openapi.json');
const typesPath = join(clientDir, 'src/schema.d.ts');
const check = process.argv.includes('--check');

const placeholderUrl = 'postgresql://unused@127.0.0.1:1/unused';
const config = loadApiConfig({ DATABASE_URL: placeholderUrl, REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'error' });
const db = createDatabase({ url: placeholderUrl, poolMax: 1 });
const redis = createRedisConnection(config.REDIS_URL, { lazyConnect: true });
const unused = () => {
  throw new Error('not used while generating the API document');
};
const { routes, close } = createApp({
  config,
  db,
  redis,
  logger: createLogger('web-api', 'error'),
  notifier: { publish: unused } as unknown as ScheduleNotifier,
  apiKeys: new ApiKeyAuthenticator(db, 0),
  testNow: { run: unused } as unknown as TestNow,
  masterKey: Buffer.alloc(32),
  now: () => new Date(),
});
const document = `${JSON.stringify(buildOpenApiDocument(routes.routes), null, 2)}\n`;
await close();
redis.disconnect();
await db.close();

const generateTypes = (input: string): string =>
  execFileSync(join(clientDir, 'node_modules/.bin/openapi-typescript'), [input], { cwd: clientDir, encoding: 'utf8' });

if (check) {
  const stale: string[] = [];
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  if (read(jsonPath) !== document) stale.push(jsonPath);
  else if (read(typesPath) !== generateTypes(jsonPath)) stale.push(typesPath);
  if (stale.length > 0) {
    console.error(`Out of date: ${stale.join(', ')}. Run \`pnpm web:api\` and commit the result.`);
    process.exit(1);
  }
  console.log('the API client (@kairos/client) is up to date');
} else {
  writeFileSync(jsonPath, document);
  writeFileSync(typesPath, generateTypes(jsonPath));
  console.log(`wrote ${jsonPath} and ${typesPath}`);
}
