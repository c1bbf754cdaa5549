// Unit tests of the server configuration (src/config.ts, its flags read by src/cli/serve.ts): flag
// parsing, the precedence flags > env > file > defaults, path expansion, and every ConfigError a user can trigger.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CONFIG_SCHEMA_URL, ConfigError, defaultConfig, effectiveLogLevel, expandPath, loadConfig,
  type ParsedArgs, type ServerConfig,
} from '../../src/config.js';
import { parseServeArgs, serveHelp } from '../../src/cli/serve.js';

/** The defaults as DESIGN.md §6 writes them, independent of the schema file. */
const DOCUMENTED_DEFAULTS: ServerConfig = {
  server: { strict: false, max_message_bytes: 10485760, tool_errors: 'jsonrpc', page_size: 100 },
  paths: { project_root: null, global_config_dir: '~/.roo-code', global_modes_file: null, confine_to_project_root: true },
  sessions: { timeout: 3600, cleanup_interval: 300, persistence: { enabled: false, storage_path: '~/.roo-code/mcp_sessions', lock_timeout_ms: 10000 } },
  logging: { level: 'INFO', file: null },
  modesets: { dir: '.task_orchestrator' },
  prompts: { use_agent_rules: true },
  backups: { keep: 20 },
  ipc: { socket_path: null, host: null, port: null, push_notifications: true, queue_limit: 1000, query_timeout_ms: 10000 },
  http: {
    host: '127.0.0.1', port: 3000, path: '/mcp', allowed_origins: [], token: null,
    max_connections: 1024, idle_timeout_ms: 5000, headers_timeout_ms: 10000, request_timeout_ms: 30000, max_unread_bytes: 32 * 1024 * 1024, drain_grace_ms: 2000, max_stateless_running: 16,
  },
  store: { url: null, prefix: 'rms:', max_mcp_sessions: 1024, max_task_sessions: 10000, lease_ms: 15000, command_timeout_ms: 5000 },
};

const NO_ARGS: ParsedArgs = { configFile: null, overrides: {}, help: false, version: false };
const CWD = resolve(tmpdir(), 'roo-config-test-cwd');

/** A fresh folder for config files, removed after the test. */
function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'roo-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function writeConfig(dir: string, content: unknown, name = 'config.json'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

async function rejectsConfig(p: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    assert.match(err.message, message);
    assert.doesNotMatch(err.message, /\n/, 'the message is printed as one line');
    return true;
  });
}

function throwsConfig(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    assert.match(err.message, message);
    return true;
  });
}

// ---- defaults ---------------------------------------------------------------------------------

test('defaultConfig equals the documented defaults', () => {
  assert.deepEqual(defaultConfig(), DOCUMENTED_DEFAULTS);
});

test('defaultConfig has a value for every property the schema declares a default for', () => {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
  const defaults = defaultConfig() as unknown as Record<string, unknown>;
  const walk = (node: Record<string, unknown>, value: Record<string, unknown>, path: string): void => {
    const props = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [key, sub] of Object.entries(props)) {
      if (key === '$schema') continue;
      if ('default' in sub) assert.deepEqual(value[key], sub.default, `${path}${key}`);
      else walk(sub, value[key] as Record<string, unknown>, `${path}${key}.`);
    }
  };
  walk(schema, defaults, '');
});

test('defaultConfig returns a fresh object each time', () => {
  const a = defaultConfig();
  a.server.page_size = 1;
  assert.equal(defaultConfig().server.page_size, 100);
});

test('loadConfig with nothing given yields the defaults with their paths expanded', async () => {
  const config = await loadConfig(NO_ARGS, {}, CWD);
  assert.deepEqual(config, {
    ...DOCUMENTED_DEFAULTS,
    paths: { ...DOCUMENTED_DEFAULTS.paths, global_config_dir: join(homedir(), '.roo-code') },
    sessions: { ...DOCUMENTED_DEFAULTS.sessions, persistence: { enabled: false, storage_path: join(homedir(), '.roo-code', 'mcp_sessions'), lock_timeout_ms: 10000 } },
  });
  assert.equal(effectiveLogLevel(config), 'info');
});

// ---- flags ------------------------------------------------------------------------------------

test('parseServeArgs with no arguments gives an empty result', () => {
  assert.deepEqual(parseServeArgs([]), NO_ARGS);
});

test('each flag fills its config slot', () => {
  const parsed = parseServeArgs([
    '--project-root', '/p', '--config-dir', '/c', '--global-modes-file', '/g.yaml',
    '--log-level', 'debug', '--log-file', '/l.log', '--strict', '--config', '/cfg.json',
  ]);
  assert.deepEqual(parsed, {
    configFile: '/cfg.json',
    overrides: {
      paths: { project_root: '/p', global_config_dir: '/c', global_modes_file: '/g.yaml' },
      logging: { level: 'debug', file: '/l.log' },
      server: { strict: true },
    },
    help: false,
    version: false,
  });
});

test('accepts the --flag=value form, keeping any later "=" in the value', () => {
  const parsed = parseServeArgs(['--project-root=/a=b', '--config=x.json', '--log-level=WARN']);
  assert.equal(parsed.configFile, 'x.json');
  assert.deepEqual(parsed.overrides, { paths: { project_root: '/a=b' }, logging: { level: 'WARN' } });
});

test('recognises --help, -h, --version and -v', () => {
  assert.equal(parseServeArgs(['--help']).help, true);
  assert.equal(parseServeArgs(['-h']).help, true);
  assert.equal(parseServeArgs(['--version']).version, true);
  assert.equal(parseServeArgs(['-v']).version, true);
});

test('a repeated flag takes its last value', () => {
  assert.deepEqual(parseServeArgs(['--log-level', 'debug', '--log-level', 'error']).overrides, { logging: { level: 'error' } });
});

test('refuses an unknown flag or a stray positional argument, naming it', () => {
  throwsConfig(() => parseServeArgs(['--frobnicate']), /unknown option "--frobnicate"/);
  throwsConfig(() => parseServeArgs(['--frobnicate=1']), /--frobnicate=1/);
  throwsConfig(() => parseServeArgs(['stray']), /unexpected argument "stray"/);
  throwsConfig(() => parseServeArgs(['-x']), /unknown option/);
});

test('refuses a flag whose value is missing at the end or empty', () => {
  throwsConfig(() => parseServeArgs(['--project-root']), /--project-root needs a value/);
  throwsConfig(() => parseServeArgs(['--config']), /--config needs a value/);
  throwsConfig(() => parseServeArgs(['--log-level=']), /--log-level needs a value/);
  throwsConfig(() => parseServeArgs(['--log-file', '']), /--log-file needs a value/);
});

test('refuses a flag whose value is missing because the next argument is another flag', () => {
  // `--project-root --strict` must not make "--strict" the project root and silently drop strict mode.
  throwsConfig(() => parseServeArgs(['--project-root', '--strict']), /--project-root needs a value/);
  throwsConfig(() => parseServeArgs(['--config', '--log-level', 'debug']), /--config needs a value/);
});

test('refuses a value given to --strict', () => {
  throwsConfig(() => parseServeArgs(['--strict=yes']), /--strict takes no value/);
});

// ---- environment ------------------------------------------------------------------------------

test('reads every documented environment variable', async () => {
  const config = await loadConfig(NO_ARGS, {
    ROO_PROJECT_ROOT: '/env/project', ROO_CONFIG_DIR: '/env/config', ROO_CODE_IPC_SOCKET_PATH: '/tmp/roo.sock',
    ROO_IPC_HOST: '127.0.0.1', ROO_IPC_PORT: '7777', ROO_MODES_LOG_LEVEL: 'debug',
  }, CWD);
  assert.equal(config.paths.project_root, '/env/project');
  assert.equal(config.paths.global_config_dir, '/env/config');
  assert.equal(config.ipc.socket_path, '/tmp/roo.sock');
  assert.equal(config.ipc.host, '127.0.0.1');
  assert.equal(config.ipc.port, 7777);
  assert.equal(config.logging.level, 'debug');
});

test('store.prefix comes from --store-prefix over ROO_MODES_STORE_PREFIX over the file, and is checked whichever set it', async () => {
  assert.equal((await loadConfig(NO_ARGS, {}, CWD)).store.prefix, 'rms:');
  assert.equal((await loadConfig(NO_ARGS, { ROO_MODES_STORE_PREFIX: 'proj-a:' }, CWD)).store.prefix, 'proj-a:');
  const flagged = parseServeArgs(['--store-prefix', 'proj-b:']);
  assert.deepEqual(flagged.overrides, { store: { prefix: 'proj-b:' } });
  assert.equal((await loadConfig(flagged, { ROO_MODES_STORE_PREFIX: 'proj-a:' }, CWD)).store.prefix, 'proj-b:', 'the flag wins');
  for (const bad of ['has space', '{braces}', 'x'.repeat(65)]) {
    await rejectsConfig(loadConfig(NO_ARGS, { ROO_MODES_STORE_PREFIX: bad }, CWD), /store\.prefix \(--store-prefix \/ ROO_MODES_STORE_PREFIX\) .* must be 1 to 64 printable ASCII characters without spaces or braces/);
    await rejectsConfig(loadConfig(parseServeArgs(['--store-prefix', bad]), {}, CWD), /store\.prefix/);
  }
});

test('ignores empty environment variables', async () => {
  const config = await loadConfig(NO_ARGS, { ROO_PROJECT_ROOT: '', ROO_IPC_PORT: '', ROO_MODES_LOG_LEVEL: '' }, CWD);
  assert.equal(config.paths.project_root, null);
  assert.equal(config.ipc.port, null);
  assert.equal(config.logging.level, 'INFO');
});

test('refuses ROO_IPC_PORT that is not a number', async () => {
  for (const port of ['abc', '80x', '-1', '1.5', ' 80']) {
    await rejectsConfig(loadConfig(NO_ARGS, { ROO_IPC_HOST: 'localhost', ROO_IPC_PORT: port }, CWD), /ROO_IPC_PORT must be a port number/);
  }
});

test('refuses ROO_IPC_PORT outside 1..65535', async () => {
  for (const port of ['0', '65536', '99999']) {
    await rejectsConfig(loadConfig(NO_ARGS, { ROO_IPC_HOST: 'localhost', ROO_IPC_PORT: port }, CWD), /ROO_IPC_PORT/);
  }
});

test('refuses an IPC host without a port, and a port without a host', async () => {
  await rejectsConfig(loadConfig(NO_ARGS, { ROO_IPC_HOST: 'localhost' }, CWD), /ipc.host and ipc.port/);
  await rejectsConfig(loadConfig(NO_ARGS, { ROO_IPC_PORT: '7000' }, CWD), /ipc.host and ipc.port/);
});

// ---- log level --------------------------------------------------------------------------------

test('accepts log levels in any case', async () => {
  for (const [given, level] of [['DEBUG', 'debug'], ['Warning', 'warning'], ['warn', 'warning'], ['error', 'error']] as const) {
    const config = await loadConfig(parseServeArgs(['--log-level', given]), {}, CWD);
    assert.equal(effectiveLogLevel(config), level);
  }
});

test('refuses an unknown log level from a flag or the environment', async () => {
  await rejectsConfig(loadConfig(parseServeArgs(['--log-level', 'verbose']), {}, CWD), /logging.level "verbose" is not a level/);
  await rejectsConfig(loadConfig(NO_ARGS, { ROO_MODES_LOG_LEVEL: 'loud' }, CWD), /"loud"/);
});

// ---- paths ------------------------------------------------------------------------------------

test('expandPath expands a leading ~ and resolves relative paths against cwd', () => {
  assert.equal(expandPath('~', '/cwd'), homedir());
  assert.equal(expandPath('~/a/b', '/cwd'), join(homedir(), 'a', 'b'));
  assert.equal(expandPath('rel/x', '/cwd'), '/cwd/rel/x');
  assert.equal(expandPath('/abs', '/cwd'), '/abs');
  assert.equal(expandPath('~user/x', '/cwd'), '/cwd/~user/x', 'only ~ and ~/ are the home folder');
});

test('expands ~ and relative paths in every path setting', async () => {
  const config = await loadConfig(parseServeArgs([
    '--project-root', '~/proj', '--config-dir', 'conf', '--global-modes-file', '~/m.yaml', '--log-file', 'logs/x.log',
  ]), { ROO_CODE_IPC_SOCKET_PATH: '~/roo.sock' }, CWD);
  assert.equal(config.paths.project_root, join(homedir(), 'proj'));
  assert.equal(config.paths.global_config_dir, join(CWD, 'conf'));
  assert.equal(config.paths.global_modes_file, join(homedir(), 'm.yaml'));
  assert.equal(config.logging.file, join(CWD, 'logs', 'x.log'));
  assert.equal(config.ipc.socket_path, join(homedir(), 'roo.sock'));
});

// ---- config file and precedence ---------------------------------------------------------------

test('precedence is flags over environment over file over defaults', async (t) => {
  const dir = tempDir(t);
  const file = writeConfig(dir, {
    paths: { project_root: '/from/file', global_config_dir: '/file/conf' },
    logging: { level: 'error' },
    server: { page_size: 7 },
  });
  const env = { ROO_PROJECT_ROOT: '/from/env', ROO_MODES_LOG_LEVEL: 'warning' };

  const all = await loadConfig(parseServeArgs(['--config', file, '--project-root', '/from/flag']), env, CWD);
  assert.equal(all.paths.project_root, '/from/flag', 'flag beats env and file');
  assert.equal(all.logging.level, 'warning', 'env beats file');
  assert.equal(all.paths.global_config_dir, '/file/conf', 'file beats default');
  assert.equal(all.server.page_size, 7, 'file beats default');
  assert.equal(all.server.max_message_bytes, 10485760, 'default fills the rest');

  const noFlag = await loadConfig(parseServeArgs(['--config', file]), env, CWD);
  assert.equal(noFlag.paths.project_root, '/from/env');

  const fileOnly = await loadConfig(parseServeArgs(['--config', file]), {}, CWD);
  assert.equal(fileOnly.paths.project_root, '/from/file');
  assert.equal(fileOnly.logging.level, 'error');

  const flagOverFile = await loadConfig(parseServeArgs(['--config', file, '--log-level', 'debug']), {}, CWD);
  assert.equal(flagOverFile.logging.level, 'debug');
});

test('a file that sets one nested key keeps the defaults of its siblings', async (t) => {
  const file = writeConfig(tempDir(t), { sessions: { persistence: { enabled: true } } });
  const config = await loadConfig(parseServeArgs(['--config', file]), {}, CWD);
  assert.equal(config.sessions.persistence.enabled, true);
  assert.equal(config.sessions.persistence.storage_path, join(homedir(), '.roo-code', 'mcp_sessions'));
  assert.equal(config.sessions.timeout, 3600);
});

test('finds a relative --config path from cwd', async (t) => {
  const dir = tempDir(t);
  writeConfig(dir, { server: { page_size: 3 } }, 'rel.json');
  const config = await loadConfig(parseServeArgs(['--config', 'rel.json']), {}, dir);
  assert.equal(config.server.page_size, 3);
});

test('accepts a complete file equal to the defaults, with a $schema key', async (t) => {
  const file = writeConfig(tempDir(t), { $schema: './schemas/config.schema.json', ...DOCUMENTED_DEFAULTS });
  const config = await loadConfig(parseServeArgs(['--config', file]), {}, CWD);
  assert.equal(config.server.page_size, 100);
});

test('takes the IPC host and port together from the file', async (t) => {
  const file = writeConfig(tempDir(t), { ipc: { host: 'localhost', port: 9000 }, server: { tool_errors: 'result' } });
  const config = await loadConfig(parseServeArgs(['--config', file]), {}, CWD);
  assert.equal(config.ipc.port, 9000);
  assert.equal(config.server.tool_errors, 'result');
});

test('refuses a config file that cannot be read', async (t) => {
  const missing = join(tempDir(t), 'absent.json');
  await rejectsConfig(loadConfig(parseServeArgs(['--config', missing]), {}, CWD), /cannot read config file/);
});

test('refuses a config file that is not JSON, or not an object', async (t) => {
  const dir = tempDir(t);
  await rejectsConfig(loadConfig(parseServeArgs(['--config', writeConfig(dir, '{ "server": ', 'bad.json')]), {}, CWD), /not valid JSON/);
  await rejectsConfig(loadConfig(parseServeArgs(['--config', writeConfig(dir, '[1, 2]', 'arr.json')]), {}, CWD), /must hold a JSON object/);
  await rejectsConfig(loadConfig(parseServeArgs(['--config', writeConfig(dir, 'null', 'null.json')]), {}, CWD), /must hold a JSON object/);
});

test('refuses a config file with a misspelt key, naming the file and the key meant', async (t) => {
  const file = writeConfig(tempDir(t), { server: { stirct: true } });
  await rejectsConfig(loadConfig(parseServeArgs(['--config', file]), {}, CWD), new RegExp(`invalid configuration in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: unknown key server.stirct; did you mean server.strict\\?`));
});

test('refuses config file values of the wrong type or out of range', async (t) => {
  const dir = tempDir(t);
  const cases: unknown[] = [
    { server: { page_size: 'ten' } },
    { server: { max_message_bytes: 10 } },
    { server: { tool_errors: 'stderr' } },
    { sessions: { timeout: 0 } },
    { ipc: { host: 'localhost', port: 70000 } },
    { logging: { level: 5 } },
    { paths: { global_config_dir: '' } },
  ];
  for (const [i, content] of cases.entries()) {
    const file = writeConfig(dir, content, `case-${i}.json`);
    await rejectsConfig(loadConfig(parseServeArgs(['--config', file]), {}, CWD), /invalid configuration/);
  }
});

test('refuses a bad log level that comes from the file', async (t) => {
  const file = writeConfig(tempDir(t), { logging: { level: 'chatty' } });
  await rejectsConfig(loadConfig(parseServeArgs(['--config', file]), {}, CWD), /"chatty"/);
});

test('serve --http flags and the token variable fill the http keys', async () => {
  const args = parseServeArgs(['--http', '--host', '::1', '--port', '0', '--path', '/x', '--insecure-no-auth']);
  assert.equal(args.http, true);
  assert.equal(args.insecureNoAuth, true);
  const config = await loadConfig(args, { ROO_MODES_HTTP_TOKEN: 'from-the-environment-123' }, CWD);
  assert.deepEqual(config.http, { ...DOCUMENTED_DEFAULTS.http, host: '::1', port: 0, path: '/x', token: 'from-the-environment-123' });
  assert.throws(() => parseServeArgs(['--port', 'eighty']), /--port must be a port number/);
  assert.throws(() => parseServeArgs(['--port', '70000']), /--port must be a port number/);
});

test('http.allowed_origins comes from --allowed-origins and ROO_MODES_HTTP_ALLOWED_ORIGINS too, flags over env over file', async (t) => {
  const file = writeConfig(tempDir(t), { http: { allowed_origins: ['https://from-file.example'] } });
  const fromFile = await loadConfig(parseServeArgs(['--config', file]), {}, CWD);
  assert.deepEqual(fromFile.http.allowed_origins, ['https://from-file.example']);
  const env = { ROO_MODES_HTTP_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080/' };
  const fromEnv = await loadConfig(parseServeArgs(['--config', file]), env, CWD);
  assert.deepEqual(fromEnv.http.allowed_origins, ['https://a.example', 'http://b.example:8080/']);
  const fromFlags = await loadConfig(parseServeArgs(['--config', file, '--allowed-origins', 'https://c.example,https://d.example', '--allowed-origins=vscode-webview://x']), env, CWD);
  assert.deepEqual(fromFlags.http.allowed_origins, ['https://c.example', 'https://d.example', 'vscode-webview://x']);
});

test('an allowed origin that is not scheme://host[:port] is refused, naming the flag or variable', async () => {
  for (const bad of ['app.example.com', 'https://app.example.com/path', 'https://user@app.example.com', 'https://a.example?x=1']) {
    assert.throws(() => parseServeArgs(['--allowed-origins', bad]), new RegExp(`^Error: --allowed-origins: ${JSON.stringify(bad).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not an origin \\(scheme://host\\[:port\\]`));
    await rejectsConfig(loadConfig(NO_ARGS, { ROO_MODES_HTTP_ALLOWED_ORIGINS: `https://ok.example,${bad}` }, CWD), /^ROO_MODES_HTTP_ALLOWED_ORIGINS: ".*" is not an origin/);
  }
  assert.throws(() => parseServeArgs(['--allowed-origins', ' , ']), /--allowed-origins needs at least one origin/);
});

test('--store with a password warns once that the command line is visible, and points to ROO_MODES_STORE; the environment does not', async () => {
  const warned: string[] = [];
  const config = await loadConfig(parseServeArgs(['--store', 'redis://:s3cret@redis.internal:6379/0']), {}, '/tmp', (w) => warned.push(w));
  assert.equal(config.store.url, 'redis://:s3cret@redis.internal:6379/0');
  assert.equal(warned.length, 1, warned.join('\n'));
  assert.match(warned[0]!, /--store carries a password.*visible to every user.*ROO_MODES_STORE/);
  assert.doesNotMatch(warned[0]!, /s3cret/, 'the warning does not repeat the password');
  const user: string[] = [];
  await loadConfig(parseServeArgs(['--store', 'redis://app:s3cret@redis.internal']), {}, '/tmp', (w) => user.push(w));
  assert.equal(user.length, 1, 'an ACL user and password warn too');
  const quiet: string[] = [];
  await loadConfig(parseServeArgs(['--store', 'redis://redis.internal:6379']), {}, '/tmp', (w) => quiet.push(w));
  await loadConfig(parseServeArgs([]), { ROO_MODES_STORE: 'redis://:s3cret@redis.internal' }, '/tmp', (w) => quiet.push(w));
  assert.deepEqual(quiet, [], 'no password on the command line: nothing to warn about');
  assert.match(serveHelp('0'), /--store URL[\s\S]*A password here shows in ps[\s\S]*ROO_MODES_STORE/);
});
