#!/usr/bin/env node
// The Kairos MCP server over stdio (built: run `pnpm build` first). Configuration: KAIROS_URL,
// KAIROS_API_KEY or the device sign-in, KAIROS_MCP_TOKEN_FILE (see services/mcp/src/config.ts).
import '../dist/main.js';
