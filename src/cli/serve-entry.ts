// What `serve` takes from the server's ES modules, named in one place: dist/main.cjs loads it from the
// one-file build of the server (dist/serve.cjs, src/build/bundle-serve.mjs) when there is one, else
// as ES modules. Only re-exports; the HTTP door and the session folder check stay lazy.
export { runReader } from '../pipeline/reader.js';
export { runWriter } from '../pipeline/writer.js';
export { Core } from '../core.js';
export { checkProjectRoot, ConfigError, effectiveLogLevel, loadConfig } from '../config.js';
export { createLogger } from '../log.js';
export { parseServeArgs, serveHelp } from './serve.js';
export { findProjectRoot, rootNotice } from '../paths/project-root.js';

export const httpDoor = (): Promise<typeof import('../http/serve.js')> => import('../http/serve.js');
export const sessionFolderCheck = (): Promise<typeof import('../tasks/session-folder-check.js')> => import('../tasks/session-folder-check.js');
