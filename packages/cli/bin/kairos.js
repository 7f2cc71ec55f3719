#!/usr/bin/env node
// The Kairos CLI for users (built: run `pnpm build` first). KAIROS_URL, KAIROS_API_KEY or `kairos login`.
import '../dist/main.js';
