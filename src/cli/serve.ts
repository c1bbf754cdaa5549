// The server's own options (`roo-modes-server [serve] …`) as one table, read into the flags layer
// of the config (src/config.ts merges it over file and environment), and the top-level --help.
// Reads argv only; never loads the config file, starts the server or prints.
import { ConfigError, originList, SESSIONS_ON, setPath, type ParsedArgs } from '../config.js';
import { logLevelHelp } from '../log.js';
import { keyOf, optionLines, parseArgs, UsageError, type Command, type Option } from './options.js';

const OPTIONS = [
  { name: '--config', kind: 'string', value: 'FILE', help: 'JSON config file (see schemas/config.schema.json; env ROO_MODES_CONFIG)' },
  { name: '--project-root', kind: 'string', value: 'DIR', sets: ['paths', 'project_root'], help: 'project whose .roomodes and rules apply (env ROO_PROJECT_ROOT)' },
  { name: '--config-dir', kind: 'string', value: 'DIR', sets: ['paths', 'global_config_dir'], help: 'global config folder, default ~/.roo-code (env ROO_CONFIG_DIR)' },
  { name: '--global-modes-file', kind: 'string', value: 'FILE', sets: ['paths', 'global_modes_file'], help: "global modes file, e.g. Roo Code's custom_modes.yaml" },
  { name: '--log-level', kind: 'string', value: 'LEVEL', sets: ['logging', 'level'], help: 'least severe level written, see below (env ROO_MODES_LOG_LEVEL)' },
  { name: '--log-file', kind: 'string', value: 'FILE', sets: ['logging', 'file'], help: 'append logs to FILE instead of stderr' },
  { name: '--strict', kind: 'switch', sets: ['server', 'strict'], help: 'reject requests before initialize, and unknown tool arguments' },
  // Also turns persistence on (SESSIONS_ON): sessions then outlive one-shot `call` runs.
  { name: '--sessions-dir', kind: 'string', value: 'DIR', sets: ['sessions', 'persistence', 'storage_path'], help: 'keep sessions in DIR so they outlive the process (env ROO_MODES_SESSIONS_DIR)' },
  { name: '--http', kind: 'switch', help: 'serve Streamable HTTP instead of stdio' },
  { name: '--host', kind: 'string', value: 'HOST', sets: ['http', 'host'], help: 'HTTP bind address, default 127.0.0.1 (http.host)' },
  { name: '--port', kind: 'number', value: 'PORT', min: 0, max: 65535, what: 'a port number (0-65535)', sets: ['http', 'port'], help: 'HTTP port, default 3000; 0 picks a free one (http.port)' },
  { name: '--path', kind: 'string', value: 'PATH', sets: ['http', 'path'], help: 'HTTP endpoint path, default /mcp (http.path)' },
  // Each value a list (originList); the values add up.
  { name: '--allowed-origins', kind: 'string', value: 'LIST', repeatable: true, parse: (text: string) => originList(text, '--allowed-origins'), sets: ['http', 'allowed_origins'],
    help: 'origins allowed besides loopback, comma-separated; repeatable (http.allowed_origins; env ROO_MODES_HTTP_ALLOWED_ORIGINS)' },
  { name: '--insecure-no-auth', kind: 'switch', help: 'allow a non-loopback --host without http.token (env ROO_MODES_HTTP_TOKEN)' },
  { name: '--store', kind: 'string', value: 'URL', sets: ['store', 'url'],
    help: 'share state in Redis, redis://[user:pass@]host:port[/db] or rediss://, so HTTP replicas behave as one server (store.url; env ROO_MODES_STORE; see docs/deployment.md). A password here shows in ps to every local user: put such a URL in ROO_MODES_STORE' },
  { name: '--store-prefix', kind: 'string', value: 'PREFIX', sets: ['store', 'prefix'],
    help: 'put before every Redis key and channel, default rms:; one per project sharing a Redis (store.prefix; env ROO_MODES_STORE_PREFIX)' },
  { name: '--version', alias: '-v', kind: 'switch', help: 'the version' },
] as const satisfies readonly Option[];

const SERVE: Command<typeof OPTIONS> = { name: '', usage: [], options: OPTIONS };

/**
 * Reads serve's argv into the config's flags layer. A usage error becomes a ConfigError (what main
 * prints for every refusal before serving); a bad origin list is refused by originList itself.
 */
export function parseServeArgs(argv: readonly string[]): ParsedArgs {
  let v;
  try { v = parseArgs(SERVE, argv); } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    // main prints it after "roo-modes-server: ", which makes it the one form of a usage error.
    throw new ConfigError(`${err.message} (see roo-modes-server --help)`);
  }
  const parsed: ParsedArgs = { configFile: v.config ?? null, overrides: {}, help: v.help, version: v.version };
  if (v.http) parsed.http = true;
  if (v.insecureNoAuth) parsed.insecureNoAuth = true;
  const values = v as unknown as Record<string, unknown>;
  for (const option of OPTIONS) {
    if (!('sets' in option)) continue;
    const value = values[keyOf(option.name)];
    if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    setPath(parsed.overrides, [...option.sets], Array.isArray(value) ? value.flat() : value);
  }
  if (v.sessionsDir !== undefined) setPath(parsed.overrides, SESSIONS_ON, true);
  return parsed;
}

/** The top-level --help: the subcommands, then serve's options from the table, then the log levels. */
export function serveHelp(version: string): string {
  return `roo-modes-server ${version} — Roo Code modes over MCP (stdio or Streamable HTTP)

Usage:
  roo-modes-server [serve] [options]        serve MCP on stdin/stdout (default)
  roo-modes-server serve --http [options]   serve MCP over Streamable HTTP (both eras)
  roo-modes-server modes [--json] [...]     print the effective mode catalogue
  roo-modes-server validate [FILE ...]      check mode files; exit 1 on problems
  roo-modes-server export-mode SLUG         print a mode in Roo's export format (--out FILE)
  roo-modes-server import-mode FILE         import Roo's export format (--global, --dry-run)
  roo-modes-server call <tool|method> ...   call a tool on this (or another) server
  roo-modes-server generate-config          print a complete default config
  roo-modes-server add-to-mcp-config ...    add this server to an MCP client's config
  roo-modes-server demo                     run the seed workflow against this server
  roo-modes-server export --to AGENT ...    write modes as Claude Code, VS Code, Cursor, OpenCode or Kilo agents
  roo-modes-server hook claude-code|cursor  enforce a mode in a Claude Code, VS Code or Cursor pre-tool hook

Serve options:
${optionLines(SERVE)}

${logLevelHelp()}

Each subcommand takes --help. Logs go to stderr; stdout carries only MCP messages.
`;
}
