export { USER_USAGE, runCli, type CliOptions } from './cli.js';
export { EXIT } from './commands.js';
