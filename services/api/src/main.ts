import { main } from './server.js';

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
