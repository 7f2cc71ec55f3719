/**
 * One jest run for the whole workspace. TypeScript is compiled by SWC to ESM (got and the
 * generated Prisma client are ESM-only); run with NODE_OPTIONS=--experimental-vm-modules.
 * Workspace packages resolve to their sources, so tests never need a build.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/services/web/'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: {
    '^@kairos/(core|db|queue|runtime|mcp-tools|client|cli)$': '<rootDir>/packages/$1/src/index.ts',
    '^@kairos/client/node$': '<rootDir>/packages/client/src/node/index.ts',
    '^@kairos/db/system$': '<rootDir>/packages/db/src/system.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  globalSetup: '<rootDir>/test/global-setup.mjs',
  globalTeardown: '<rootDir>/test/global-teardown.mjs',
  testTimeout: 30000,
  // Test files share two cores with PostgreSQL and Redis.
  maxWorkers: 2,
};
