// ServerConfig: defaults < config file < environment < flags, validated before serving. The
// defaults are the `default`s of schemas/config.schema.json, so they are written down once.
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { HttpConfigBounds, StoreConfigBounds } from './bounds.js';
import { LOG_LEVELS, parseLogLevel, type LogLevel } from './log.js';
import { readFileSafely, UnsafeFileError } from './files/safe-read.js';
import { isRecord as isObject } from './rpc/jsonrpc.js';
import { depthMessage, tooDeep } from './rpc/json-bounds.js';
import { parseRedisUrl } from './redis/url.js';

export interface ServerConfig {
  server: { strict: boolean; max_message_bytes: number; tool_errors: 'jsonrpc' | 'result'; page_size: number };
  paths: { project_root: string | null; global_config_dir: string; global_modes_file: string | null; confine_to_project_root: boolean };
  sessions: { timeout: number; cleanup_interval: number; persistence: { enabled: boolean; storage_path: string; lock_timeout_ms: number } };
  logging: { level: string; file: string | null };
  modesets: { dir: string };
  prompts: { use_agent_rules: boolean };
  backups: { keep: number };
  ipc: {
    socket_path: string | null; host: string | null; port: number | null;
    push_notifications: boolean; queue_limit: number; query_timeout_ms: number;
  };
  http: { host: string; port: number; path: string; allowed_origins: string[]; token: string | null } & HttpConfigBounds;
  /** url null: state stays in this process; a Redis URL: shared by every server using it (docs/deployment.md). */
  store: { url: string | null; prefix: string; lease_ms: number; command_timeout_ms: number } & StoreConfigBounds;
}

/** A bad flag, file or value: main prints the message as one line and exits 2. */
export class ConfigError extends Error {}

type Json = Record<string, unknown>;

/** The longest config file read. */
const CONFIG_MAX_BYTES = 1024 * 1024;

export const CONFIG_SCHEMA_URL = new URL('../schemas/config.schema.json', import.meta.url);

/** The schema's defaults as a complete config (what generate-config prints). */
export function defaultConfig(): ServerConfig {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as Json;
  const collect = (node: Json): Json => {
    const out: Json = {};
    const props = isObject(node.properties) ? node.properties : {};
    for (const [key, sub] of Object.entries(props)) {
      if (!isObject(sub) || key === '$schema') continue;
      if (Object.prototype.hasOwnProperty.call(sub, 'default')) out[key] = sub.default;
      else if (sub.type === 'object') out[key] = collect(sub);
    }
    return out;
  };
  return collect(schema) as unknown as ServerConfig;
}

/** Expands a leading ~ and makes the path absolute. */
export function expandPath(p: string, cwd = process.cwd()): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return resolve(homedir(), p.slice(2));
  return resolve(cwd, p);
}

function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    out[key] = isObject(value) && isObject(base[key]) ? merge(base[key] as Json, value) : value;
  }
  return out;
}

/** Where the sessions folder is given (flag or environment), persistence is on. */
export const SESSIONS_ON = ['sessions', 'persistence', 'enabled'];

/** The flags layer, as src/cli/serve.ts reads it from argv. */
export interface ParsedArgs {
  configFile: string | null; overrides: Json; help: boolean; version: boolean;
  /** serve --http; --insecure-no-auth allows a non-loopback bind without a token. */
  http?: boolean; insecureNoAuth?: boolean;
}

/** A TCP port from text: decimal, `min`..65535. */
function portNumber(text: string, what: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > 65535) throw new ConfigError(`${what} must be a port number (${min}-65535), got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `scheme://host[:port]`, with a trailing `/` allowed (the gate drops it): no path, query or user. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+\/?$/i;

/**
 * Origins from a flag or an environment variable: separated by commas or spaces, each an origin
 * as http.allowed_origins holds it; anything else is refused, naming where it came from.
 */
export function originList(text: string, where: string): string[] {
  const items = text.split(/[\s,]+/).filter((o) => o !== '');
  const bad = items.find((o) => !ORIGIN.test(o));
  if (bad !== undefined) throw new ConfigError(`${where}: ${JSON.stringify(bad)} is not an origin (scheme://host[:port], e.g. https://app.example.com)`);
  if (items.length === 0) throw new ConfigError(`${where} needs at least one origin (scheme://host[:port])`);
  return items;
}

/** Sets a value at a path of config keys, making the objects on the way. */
export function setPath(target: Json, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] = isObject(node[key]) ? node[key] : {}) as Json;
  node[path[path.length - 1]!] = value;
}

/**
 * The one rule for a bearer token, whichever layer gives it (file, environment, flag): null, or at
 * least the schema's minLength of http.token in characters. `where` names the layer in the error.
 */
export function checkHttpToken(token: unknown, where: string): void {
  if (token === undefined || token === null) return;
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as { properties: { http: { properties: { token: { minLength: number } } } } };
  const min = schema.properties.http.properties.token.minLength;
  if (typeof token !== 'string' || [...token].length < min) {
    const got = typeof token === 'string' ? `${[...token].length} characters` : `a ${typeof token}`;
    throw new ConfigError(`${where} must be a token of at least ${min} characters (got ${got}): a short token is quickly guessed`);
  }
}

function envOverrides(env: NodeJS.ProcessEnv): Json {
  const out: Json = {};
  const str = (name: string, path: string[]): void => {
    const v = env[name];
    if (v !== undefined && v !== '') setPath(out, path, v);
  };
  str('ROO_PROJECT_ROOT', ['paths', 'project_root']);
  str('ROO_CONFIG_DIR', ['paths', 'global_config_dir']);
  str('ROO_CODE_IPC_SOCKET_PATH', ['ipc', 'socket_path']);
  str('ROO_IPC_HOST', ['ipc', 'host']);
  str('ROO_MODES_LOG_LEVEL', ['logging', 'level']);
  str('ROO_MODES_SESSIONS_DIR', ['sessions', 'persistence', 'storage_path']);
  if (env.ROO_MODES_SESSIONS_DIR) setPath(out, SESSIONS_ON, true);
  str('ROO_MODES_HTTP_TOKEN', ['http', 'token']);
  str('ROO_MODES_STORE', ['store', 'url']);
  str('ROO_MODES_STORE_PREFIX', ['store', 'prefix']);
  checkHttpToken(isObject(out.http) ? out.http.token : undefined, 'ROO_MODES_HTTP_TOKEN');
  const origins = env.ROO_MODES_HTTP_ALLOWED_ORIGINS;
  if (origins !== undefined && origins !== '') setPath(out, ['http', 'allowed_origins'], originList(origins, 'ROO_MODES_HTTP_ALLOWED_ORIGINS'));
  const port = env.ROO_IPC_PORT;
  if (port !== undefined && port !== '') {
    setPath(out, ['ipc', 'port'], portNumber(port, 'ROO_IPC_PORT', 1));
  }
  return out;
}

/**
 * Builds and validates the effective configuration. The file comes from --config, else
 * ROO_MODES_CONFIG (the MCP Inspector keeps --config for itself). `warn` hears, once, about keys
 * of the file that the server does not use.
 */
export async function loadConfig(
  args: ParsedArgs, env: NodeJS.ProcessEnv, cwd = process.cwd(), warn: (message: string) => void = () => {},
): Promise<ServerConfig> {
  let fileLayer: Json = {};
  const configFile = args.configFile ?? (env.ROO_MODES_CONFIG || null);
  if (configFile) {
    const file = expandPath(configFile, cwd);
    let text: string;
    // A regular file of at most 1 MiB (links followed: it is the user's own); never a FIFO or device.
    try { text = (await readFileSafely(file, { maxBytes: CONFIG_MAX_BYTES, links: 'follow' })).text; } catch (err) {
      throw new ConfigError(`cannot read config file ${file}: ${err instanceof UnsafeFileError ? err.problem : (err as Error).message}`);
    }
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch (err) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
    }
    if (!isObject(parsed)) throw new ConfigError(`config file ${file} must hold a JSON object`);
    // Checked before the schema, whose validator recurses into what it is given.
    if (tooDeep(parsed)) throw new ConfigError(`config file ${file}: ${depthMessage('the document')}`);
    checkHttpToken(isObject(parsed.http) ? parsed.http.token : undefined, `http.token in ${file}`);
    fileLayer = await validateAgainstSchema(parsed, file, warn);
  }
  const merged = merge(merge(merge(defaultConfig() as unknown as Json, fileLayer), envOverrides(env)), args.overrides);
  // Flags give no token today; this holds any later layer to the same rule.
  checkHttpToken((merged.http as Json).token, 'http.token');
  // Flags and environment only fill string slots (the port and the origins are checked above), so
  // only the file layer needs the schema; that keeps the validator off the startup path.
  const config = merged as unknown as ServerConfig;
  if (!parseLogLevel(config.logging.level)) {
    throw new ConfigError(`logging.level ${JSON.stringify(config.logging.level)} is not a level (${LOG_LEVELS.join(', ')})`);
  }
  checkStoreUrl(config.store.url);
  checkStorePrefix(config.store.prefix);
  const flagStore = isObject(args.overrides.store) ? args.overrides.store.url : undefined;
  if (typeof flagStore === 'string' && parseRedisUrl(flagStore).password !== undefined) {
    // The flag is in the process's command line, which any local user reads (ps, /proc/<pid>/cmdline);
    // the logs mask it, the command line cannot. Said once, at start, where it can still be fixed.
    warn(`--store carries a password, and a command line is visible to every user of this machine (ps); give the URL in ROO_MODES_STORE (or store.url in the config file) instead, and change the password if others share the host`);
  }
  if ((config.ipc.host === null) !== (config.ipc.port === null)) {
    throw new ConfigError('ipc.host and ipc.port (ROO_IPC_HOST / ROO_IPC_PORT) must be given together');
  }
  return resolvePaths(config, cwd);
}

/**
 * The key prefix, whichever layer set it: the flag and the environment skip the schema, so the
 * schema's rule (printable ASCII without spaces or braces, 1 to 64 characters) is checked here too.
 */
const STORE_PREFIX = /^[!-z|~]{1,64}$/;
function checkStorePrefix(prefix: string): void {
  if (!STORE_PREFIX.test(prefix)) {
    throw new ConfigError(`store.prefix (--store-prefix / ROO_MODES_STORE_PREFIX) ${JSON.stringify(prefix)} must be 1 to 64 printable ASCII characters without spaces or braces`);
  }
}

/** A store URL is read before serving, so a typo stops the start instead of every later request. */
function checkStoreUrl(url: string | null): void {
  if (url === null) return;
  try { parseRedisUrl(url); } catch (err) {
    throw new ConfigError(`store.url (--store / ROO_MODES_STORE): ${(err as Error).message}`);
  }
}


/**
 * A project root that is not a folder would serve built-in modes only, silently: refused before
 * serving (kept apart from loadConfig, which stays a pure merge of its inputs).
 */
export async function checkProjectRoot(root: string | null): Promise<void> {
  if (root === null) return;
  const info = await stat(root).catch(() => null);
  if (!info) throw new ConfigError(`the project root ${root} does not exist (--project-root / ROO_PROJECT_ROOT)`);
  if (!info.isDirectory()) throw new ConfigError(`the project root ${root} is not a directory (--project-root / ROO_PROJECT_ROOT)`);
}

function resolvePaths(c: ServerConfig, cwd: string): ServerConfig {
  const opt = (p: string | null): string | null => (p === null ? null : expandPath(p, cwd));
  return {
    ...c,
    paths: {
      ...c.paths,
      project_root: opt(c.paths.project_root),
      global_config_dir: expandPath(c.paths.global_config_dir, cwd),
      global_modes_file: opt(c.paths.global_modes_file),
    },
    sessions: { ...c.sessions, persistence: { ...c.sessions.persistence, storage_path: expandPath(c.sessions.persistence.storage_path, cwd) } },
    logging: { ...c.logging, file: opt(c.logging.file) },
    ipc: { ...c.ipc, socket_path: opt(c.ipc.socket_path) },
  };
}

/** Unknown keys first (typo → error, else warned about and dropped), then the schema. */
async function validateAgainstSchema(value: Json, where: string, warn: (message: string) => void): Promise<Json> {
  const [{ compileSchema }, { sortConfigKeys }] = await Promise.all([import('./schema/validate.js'), import('./config-keys.js')]);
  const schema = JSON.parse(await readFile(CONFIG_SCHEMA_URL, 'utf8')) as Json;
  const sorted = sortConfigKeys(value, schema);
  if (sorted.typo) {
    throw new ConfigError(`invalid configuration in ${where}: unknown key ${sorted.typo.key}; did you mean ${sorted.typo.suggestion}?`);
  }
  if (sorted.ignored.length > 0) warn(`${where}: ignoring keys this server does not use: ${sorted.ignored.join(', ')}`);
  const issues = compileSchema(schema)(sorted.known, '');
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new ConfigError(`invalid configuration in ${where}: ${first.message}${more}`);
  }
  return sorted.known;
}

/** True when a Roo IPC socket (or host and port) is configured: the roo_ipc_* tools are offered. */
export const ipcEnabled = (c: ServerConfig): boolean =>
  c.ipc.socket_path !== null || (c.ipc.host !== null && c.ipc.port !== null);

export const effectiveLogLevel = (c: ServerConfig): LogLevel => parseLogLevel(c.logging.level) ?? 'info';
