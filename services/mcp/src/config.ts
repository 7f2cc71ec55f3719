/**
 * The stdio server's configuration, from the environment (the MCP client's server entry sets it).
 *
 *   KAIROS_URL             the API, default http://127.0.0.1:3000
 *   KAIROS_API_KEY         use this API key (x-api-key) instead of signing in
 *   KAIROS_MCP_TOKEN_FILE  where the device-flow token is cached, default
 *                          $XDG_CONFIG_HOME/kairos/mcp-token.json (~/.config/kairos/mcp-token.json)
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

const optionalText = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z.string().trim().optional(),
);

const schema = z.object({
  KAIROS_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .default('http://127.0.0.1:3000')
    .describe('The Kairos API the stdio MCP server talks to.'),
  KAIROS_API_KEY: optionalText.describe('Use this API key (x-api-key) instead of signing in with the device flow.'),
  KAIROS_MCP_TOKEN_FILE: optionalText.describe(
    'Where the device-flow token is cached. Unset: `$XDG_CONFIG_HOME/kairos/mcp-token.json` (`~/.config/kairos/mcp-token.json`).',
  ),
  XDG_CONFIG_HOME: optionalText.describe('Base folder of the token file when KAIROS_MCP_TOKEN_FILE is unset.'),
});

/** The schema itself, for the configuration reference (scripts/config-reference.ts). */
export const mcpConfigSchema = schema;

export interface McpConfig {
  apiUrl: string;
  apiKey: string | undefined;
  tokenFile: string;
}

export function loadMcpConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  const configHome = config.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return {
    apiUrl: config.KAIROS_URL.replace(/\/+$/, ''),
    apiKey: config.KAIROS_API_KEY,
    tokenFile: config.KAIROS_MCP_TOKEN_FILE ?? join(configHome, 'kairos', 'mcp-token.json'),
  };
}
