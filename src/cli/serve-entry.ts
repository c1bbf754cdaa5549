// What `serve` takes from the server's ES modules, named in one place: dist/main.cjs loads it from the
// one-file build of the server (dist/serve.cjs, src/build/bundle-serve.mjs) when there is one, else
// as ES modules. Only re-exports; the HTTP door and the session folder check stay lazy, and so do
// the other subcommands, which main.cjs takes from here too: through the bundle (and its code
// cache) they start without Node's ES module loader and dozens of module reads.
export { runReader } from '../pipeline/reader.js';
export { runWriter } from '../pipeline/writer.js';
export { Core } from '../core.js';
export { checkProjectRoot, ConfigError, effectiveLogLevel, loadConfig } from '../config.js';
export { createLogger } from '../log.js';
export { parseServeArgs, serveHelp } from './serve.js';
export { findProjectRoot, rootNotice } from '../paths/project-root.js';
// For dist/main.cjs's last word on a failed command: the error classes the command threw with.
export { RpcError } from '../rpc/errors.js';
export { cliMessage } from './options.js';

export const httpDoor = (): Promise<typeof import('../http/serve.js')> => import('../http/serve.js');
export const sessionFolderCheck = (): Promise<typeof import('../tasks/session-folder-check.js')> => import('../tasks/session-folder-check.js');

/** The other subcommands' modules, each loaded when its command runs. */
export const commands = {
  modes: (): Promise<typeof import('./modes.js')> => import('./modes.js'),
  validate: (): Promise<typeof import('./validate.js')> => import('./validate.js'),
  exchange: (): Promise<typeof import('./exchange.js')> => import('./exchange.js'),
  call: (): Promise<typeof import('./call.js')> => import('./call.js'),
  addToMcpConfig: (): Promise<typeof import('./add-to-mcp-config.js')> => import('./add-to-mcp-config.js'),
  demo: (): Promise<typeof import('./demo.js')> => import('./demo.js'),
  generateConfig: (): Promise<typeof import('./generate-config.js')> => import('./generate-config.js'),
  export: (): Promise<typeof import('./export.js')> => import('./export.js'),
  options: (): Promise<typeof import('./options.js')> => import('./options.js'),
};
