// ServerConfig: defaults < config file < environment < flags, validated before serving. The
// defaults are the `default`s of schemas/config.schema.json, so they are written down once.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parseLogLevel, type LogLevel } from './log.js';
import { isRecord as isObject } from './rpc/jsonrpc.js';
import { depthMessage, tooDeep } from './rpc/json-bounds.js';

export interface ServerConfig {
  server: { strict: boolean; max_message_bytes: number; tool_errors: 'jsonrpc' | 'result'; page_size: number };
  paths: { project_root: string | null; global_config_dir: string; global_modes_file: string | null; confine_to_project_root: boolean };
  sessions: { timeout: number; cleanup_interval: number; persistence: { enabled: boolean; storage_path: string } };
  logging: { level: string; file: string | null };
  modesets: { dir: string };
  ipc: {
    socket_path: string | null; host: string | null; port: number | null;
    push_notifications: boolean; queue_limit: number; query_timeout_ms: number;
  };
}

/** A bad flag, file or value: main prints the message as one line and exits 2. */
export class ConfigError extends Error {}

type Json = Record<string, unknown>;

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

/** Serve-mode flags: name → [config path, takes a value]. One table. */
const FLAGS: Record<string, [path: string[], hasValue: boolean]> = {
  '--config': [[], true],
  '--project-root': [['paths', 'project_root'], true],
  '--config-dir': [['paths', 'global_config_dir'], true],
  '--global-modes-file': [['paths', 'global_modes_file'], true],
  '--log-level': [['logging', 'level'], true],
  '--log-file': [['logging', 'file'], true],
  '--strict': [['server', 'strict'], false],
};

export interface ParsedArgs { configFile: string | null; overrides: Json; help: boolean; version: boolean }

export function parseServeArgs(argv: readonly string[]): ParsedArgs {
  const parsed: ParsedArgs = { configFile: null, overrides: {}, help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') { parsed.help = true; continue; }
    if (arg === '--version' || arg === '-v') { parsed.version = true; continue; }
    const eq = arg.indexOf('=');
    const name = eq > 0 && arg.startsWith('--') ? arg.slice(0, eq) : arg;
    const spec = FLAGS[name];
    if (!spec) throw new ConfigError(`unknown option ${JSON.stringify(arg)} (see --help)`);
    const [path, hasValue] = spec;
    let value: unknown = true;
    if (hasValue) {
      value = eq > 0 && name !== arg ? arg.slice(eq + 1) : argv[i + 1]?.startsWith('--') ? undefined : argv[++i];
      if (typeof value !== 'string' || value === '') throw new ConfigError(`option ${name} needs a value`);
    } else if (eq > 0 && name !== arg) {
      throw new ConfigError(`option ${name} takes no value`);
    }
    if (name === '--config') parsed.configFile = value as string;
    else setPath(parsed.overrides, path, value);
  }
  return parsed;
}

function setPath(target: Json, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] = isObject(node[key]) ? node[key] : {}) as Json;
  node[path[path.length - 1]!] = value;
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
  const port = env.ROO_IPC_PORT;
  if (port !== undefined && port !== '') {
    if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new ConfigError(`ROO_IPC_PORT must be a port number, got ${JSON.stringify(port)}`);
    setPath(out, ['ipc', 'port'], Number(port));
  }
  return out;
}

/** Builds and validates the effective configuration. */
export async function loadConfig(args: ParsedArgs, env: NodeJS.ProcessEnv, cwd = process.cwd()): Promise<ServerConfig> {
  let fileLayer: Json = {};
  if (args.configFile) {
    const file = expandPath(args.configFile, cwd);
    let text: string;
    try { text = await readFile(file, 'utf8'); } catch (err) {
      throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
    }
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch (err) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
    }
    if (!isObject(parsed)) throw new ConfigError(`config file ${file} must hold a JSON object`);
    // Checked before the schema, whose validator recurses into what it is given.
    if (tooDeep(parsed)) throw new ConfigError(`config file ${file}: ${depthMessage('the document')}`);
    await validateAgainstSchema(parsed, file);
    fileLayer = parsed;
  }
  const merged = merge(merge(merge(defaultConfig() as unknown as Json, fileLayer), envOverrides(env)), args.overrides);
  // Flags and environment only fill string slots (the port is checked above), so only the file
  // layer needs the schema; that keeps the validator off the startup path.
  const config = merged as unknown as ServerConfig;
  if (!parseLogLevel(config.logging.level)) {
    throw new ConfigError(`logging.level ${JSON.stringify(config.logging.level)} is not a level (debug, info, notice, warning, error, critical, alert, emergency)`);
  }
  if ((config.ipc.host === null) !== (config.ipc.port === null)) {
    throw new ConfigError('ipc.host and ipc.port (ROO_IPC_HOST / ROO_IPC_PORT) must be given together');
  }
  return resolvePaths(config, cwd);
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

async function validateAgainstSchema(value: Json, where: string): Promise<void> {
  const { compileSchema } = await import('./schema/validate.js');
  const schema = JSON.parse(await readFile(CONFIG_SCHEMA_URL, 'utf8')) as Json;
  const issues = compileSchema(schema)(value, '');
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new ConfigError(`invalid configuration in ${where}: ${first.message}${more}`);
  }
}

/** True when a Roo IPC socket (or host and port) is configured: the roo_ipc_* tools are offered. */
export const ipcEnabled = (c: ServerConfig): boolean =>
  c.ipc.socket_path !== null || (c.ipc.host !== null && c.ipc.port !== null);

export const effectiveLogLevel = (c: ServerConfig): LogLevel => parseLogLevel(c.logging.level) ?? 'info';
