import { log, runStdioServer } from './stdio.js';

runStdioServer().catch((error: Error) => {
  log(error.message);
  process.exit(1);
});
