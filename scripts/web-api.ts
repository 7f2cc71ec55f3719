/**
 * `pnpm web:api` writes the web UI's typed API client inputs from the api's route registry:
 *   services/web/src/api/openapi.json  the OpenAPI 3.1 document served at /api/doc
 *   services/web/src/api/schema.d.ts   TypeScript types generated from it by openapi-typescript
 * `pnpm web:api --check` (part of `pnpm test`) fails when either file is out of date, so the UI
 * cannot compile against an API that no longer exists.
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
const webDir = join(root, 'services/web');
const jsonPath = join(webDir, 'src/api/openapi.json');
const typesPath = join(webDir, 'src/api/schema.d.ts');
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
  execFileSync(join(webDir, 'node_modules/.bin/openapi-typescript'), [input], { cwd: webDir, encoding: 'utf8' });

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
  console.log('web API client is up to date');
} else {
  writeFileSync(jsonPath, document);
  writeFileSync(typesPath, generateTypes(jsonPath));
  console.log(`wrote ${jsonPath} and ${typesPath}`);
}
