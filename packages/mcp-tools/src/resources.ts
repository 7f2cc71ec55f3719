/**
 * Documentation as MCP resources: the API's own llms.txt (fetched from GET /api/llms.txt, so it is
 * always the running API's) and short guides kept in this package (src/guides/*.md).
 */
import { readFile } from 'node:fs/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toApiError, type KairosClient } from '@kairos/client';

export interface KairosGuide {
  name: string;
  uri: string;
  file: string;
  title: string;
  description: string;
}

export const LLMS_TXT_URI = 'kairos://docs/llms.txt';

export const KAIROS_GUIDES: readonly KairosGuide[] = [
  {
    name: 'getting-started',
    uri: 'kairos://guides/getting-started',
    file: 'getting-started.md',
    title: 'Getting started',
    description: 'Jobs, endpoints, runs and hints; a first job step by step; what tool errors mean',
  },
  {
    name: 'scheduling',
    uri: 'kairos://guides/scheduling',
    file: 'scheduling.md',
    title: 'Scheduling rules and hints',
    description: 'How the next run is chosen, interval and one-shot hints, pauses, failures and backoff',
  },
  {
    name: 'signing',
    uri: 'kairos://guides/signing',
    file: 'signing.md',
    title: 'Verifying signed requests',
    description: 'X-Service-Signature and X-Service-Timestamp: how endpoints verify requests from Kairos',
  },
];

// src/guides/*.md; the build copies them to dist/guides (the service images ship dist/ only).
const GUIDES_DIR = new URL('./guides/', import.meta.url);

export const readGuide = (guide: KairosGuide): Promise<string> => readFile(new URL(guide.file, GUIDES_DIR), 'utf8');

/** The running API's llms.txt (public; not part of the OpenAPI document). */
async function readLlmsTxt(api: KairosClient): Promise<string> {
  const response = await api.request('/api/llms.txt', { headers: { accept: 'text/markdown' } });
  const text = await response.text();
  if (!response.ok) throw toApiError(response.status, text);
  return text;
}

export function registerKairosResources(server: McpServer, api: KairosClient): void {
  server.registerResource(
    'llms-txt',
    LLMS_TXT_URI,
    {
      title: 'Kairos HTTP API (llms.txt)',
      description: 'Every API operation, its parameters and responses, in Markdown',
      mimeType: 'text/markdown',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await readLlmsTxt(api) }] }),
  );
  for (const guide of KAIROS_GUIDES) {
    server.registerResource(
      guide.name,
      guide.uri,
      { title: guide.title, description: guide.description, mimeType: 'text/markdown' },
      async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await readGuide(guide) }] }),
    );
  }
}
