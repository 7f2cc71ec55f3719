/// <reference types="vitest/config" />
/**
 * The web UI is a static bundle: `vite build` writes dist/, which the api serves from its own
 * origin (KAIROS_WEB_DIR). `pnpm --filter @kairos/web dev` proxies /api and /device to a running api.
 */
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

const api = process.env.KAIROS_API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react()],
  // Workspace packages (@kairos/client) are read from their TypeScript sources, as tests and tsx do.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  server: { host: '127.0.0.1', proxy: { '/api': api, '/admin': api } },
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1024 },
  test: { environment: 'jsdom', include: ['src/**/*.test.{ts,tsx}'] },
});
