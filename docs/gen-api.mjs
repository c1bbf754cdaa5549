#!/usr/bin/env node
// Writes docs/api.md from the sources of truth: schemas/tools/*.json, the built error table and
// revisions (dist/), and what the built server itself lists (resource templates, prompts).
// It never edits a schema or the source; `--check` only reads and compares.
//
// Usage (after `npm run build`):
//   node docs/gen-api.mjs                  rewrite docs/api.md
//   node docs/gen-api.mjs --check          exit 1 with a diff summary when docs/api.md is stale
//   node docs/gen-api.mjs --check --file F compare F instead (used by the drift test)
//   node docs/gen-api.mjs --stdout         print the document instead of writing it

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SCHEMA_DIR = join(REPO, 'schemas', 'tools');
const DIST = join(REPO, 'dist');
const TARGET = join(REPO, 'docs', 'api.md');

// ---- hand-kept facts, each checked against the source below ----------------------------------

/** What each error code means to a caller. Keys must equal ERROR_CODES in src/rpc/errors.ts. */
const CODE_MEANING = {
  PARSE_ERROR: 'The line is not valid JSON. The answer has `id: null`.',
  INVALID_REQUEST: 'Valid JSON that is not a JSON-RPC request or notification; a line over `server.max_message_bytes` (answered with its id when the line\'s first 512 bytes name one before any `result` or `error`, as clients write it: `{"jsonrpc":"2.0","id":7,…`); a message nested deeper than 1000 levels (answered with its id when it has one; in a 2025-03-26 batch the bound holds per element, so only that element gets this error and the others their answers); a second `initialize`; an empty or misplaced batch; a request before `initialize` under `--strict`.',
  METHOD_NOT_FOUND: 'No such method.',
  INVALID_PARAMS: 'Malformed params of a protocol method (not a tool\'s arguments); an unknown tool or prompt name (the message lists the names there are); a bad pagination cursor.',
  INTERNAL_ERROR: 'A bug in the server: the message stays bland; the detail and stack go to stderr with the request id. Also an answer too large to send: its message starts `Response not sent:` and names its size and `server.max_message_bytes`; `data` carries `bytes` and `limit`. Also, with session persistence, a session store that cannot serve the call: its folder fails (the message names the path and the OS error) or the session stayed locked by another live process for `sessions.persistence.lock_timeout_ms`; nothing was changed, and tools that need no store keep working.',
  MODE_NOT_FOUND: 'No mode has this slug. The message lists the slugs there are (`data.available_modes` too); when a mode file defines the slug but did not load (it does not parse, or the entry was skipped), the message names that file\'s problem as `file:line:column: reason` (`data.load_problem`).',
  TASK_NOT_FOUND: 'No session has this id (never created, or created by another server process without persistence: see `--sessions-dir` / `ROO_MODES_SESSIONS_DIR`). The message says so. With a shared store (`--store`), `data.reason` says why as far as the store can tell: `evicted` (its record vanished before its timeout), `lost_in_restart` (Redis was restarted and lost its data) or `unknown` (see docs/deployment.md, "What a missing session answers").',
  SESSION_EXPIRED: 'The session existed but went unused for longer than `sessions.timeout`.',
  VALIDATION_ERROR: 'Tool arguments break the tool\'s input schema (`data.issues` gives each JSON path; an unknown argument that was ignored is named in the message beside the missing one); a bad resource URI (the message gives the URI forms); a state change the task does not allow; a mode-set file that is missing, invalid or already exists; a Roo Code IPC bridge that is not connected; a mode file (or the mode sets) locked by another live process, with `data.retryable: true` and `holder_pid`, nothing written; with a shared store, `create_task` past `store.max_task_sessions` (`data.error_type` `session_limit`, `retryable: true`, `retry_after_s`), nothing created.',
  TOOL_RESTRICTION_ERROR: 'The task\'s mode may not use this tool (only with `enforce: true`).',
  FILE_RESTRICTION_ERROR: 'The file is not allowed: outside the mode\'s `fileRegex`, outside the project root, or (mode sets) a name that is a path or leads outside its folder.',
  HEADER_MISMATCH: '2026-07-28 over HTTP only (HTTP 400): `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` is missing or disagrees with the body; the message names the header and both values.',
  MISSING_REQUIRED_CLIENT_CAPABILITY: '2026-07-28 only: the request needs a client capability its `_meta` did not declare; `data.requiredCapabilities` names it (a listen stream asking for Roo events without our extension).',
  UNSUPPORTED_PROTOCOL_VERSION: '2026-07-28 only: `_meta` names a protocol version the server does not serve per request; `data.supported` lists those it does, `data.requested` echoes the one asked for.',
};

/** Errors every tool can return, whatever it does. */
const COMMON_TOOL_ERRORS = [
  ['INVALID_PARAMS', 'the tool name is unknown, or `arguments` is not an object'],
  ['VALIDATION_ERROR', 'the arguments break the input schema (missing, mistyped, too long; unknown keys only under `server.strict`)'],
];

const SESSION_GONE = [
  ['TASK_NOT_FOUND', '`session_id` is unknown'],
  ['SESSION_EXPIRED', 'the session timed out'],
  ['INTERNAL_ERROR', 'persistence is on and the store folder fails, or the session stays locked by a live process'],
];
const SET_NAME_REFUSED = ['FILE_RESTRICTION_ERROR', 'a file name that is a path, contains `..`, or resolves outside its folder'];
const IPC_NOT_READY = ['VALIDATION_ERROR', 'the bridge is not enabled or not connected (see `roo_ipc_status`)'];
// The mode file's lock, for every tool that writes it (src/authoring/mode-file-lock.ts).
const MODE_FILE_LOCKED = ['VALIDATION_ERROR', 'another process held the mode file\'s lock for 10 s (`data.error_type` `busy`, `retryable: true`, `holder_pid`), or its lock file is not a regular file (`lock_file_unusable`); nothing was written'];
// With a shared store, what the fence of src/authoring/turn-fence.ts adds (docs/deployment.md tells why).
const MODE_FILE_FENCED = ['VALIDATION_ERROR', 'with a shared store (`--store`): another replica held the file\'s turn for 10 s (`busy`, `holder`), or this one\'s turn ran out before the write was recorded (`busy`), both `written: false` and retryable; the write was recorded but replaced before it landed by a change not built on it (`superseded`, `written: false`, retryable) or landed too late to tell (`outcome_unknown`, `may_have_run: true`); the new file is over 4 MiB (`too_large`); the store is unavailable (`store_unavailable`, `written: false`, or `may_have_run: true` when the connection broke while recording); a refusal after some files of the change were written says so (`written: true`, `complete: false`, `files_written`)'];

/**
 * The errors each tool adds to the common ones, read off its handler (src/mcp/mode-tools.ts, exchange-tools.ts, authoring-tools.ts,
 * src/modesets/tools.ts, src/ipc/tools.ts). The order of this table is the order of the document,
 * and it must name every file in schemas/tools/.
 */
const TOOL_ERRORS = {
  list_modes: [],
  get_mode_info: [['MODE_NOT_FOUND', '`mode_slug` names no mode']],
  create_task: [
    ['MODE_NOT_FOUND', '`mode_slug` names no mode'],
    ['TASK_NOT_FOUND', '`parent_session_id` is unknown'],
    ['SESSION_EXPIRED', 'the parent session timed out'],
    ['VALIDATION_ERROR', 'the parent task is no longer active'],
    ['VALIDATION_ERROR', 'with a shared store, the store holds `store.max_task_sessions` sessions already (`data.error_type` `session_limit`, `retryable: true`, `retry_after_s`); nothing was created'],
    ['INTERNAL_ERROR', 'persistence is on and the store folder fails (path and OS error in the message)'],
  ],
  validate_tool_use: [
    ...SESSION_GONE,
    ['MODE_NOT_FOUND', 'the task\'s mode is no longer defined'],
    ['TOOL_RESTRICTION_ERROR', '`enforce` is true and the mode may not use the tool'],
    ['FILE_RESTRICTION_ERROR', '`enforce` is true and the file is refused'],
  ],
  switch_mode: [
    ...SESSION_GONE,
    ['MODE_NOT_FOUND', '`new_mode_slug` names no mode'],
    ['VALIDATION_ERROR', 'the task is no longer active'],
  ],
  get_task_info: [...SESSION_GONE],
  complete_task: [...SESSION_GONE, ['VALIDATION_ERROR', 'the task was already finished']],
  export_mode: [['MODE_NOT_FOUND', '`mode_slug` names no mode']],
  create_mode: [
    ['VALIDATION_ERROR', 'the mode breaks the loading rules, the slug exists in that scope, no project root, or the mode file does not parse'],
    ...SESSION_GONE,
    ['TOOL_RESTRICTION_ERROR', 'with `session_id`: the session\'s mode has no edit group'],
    ['FILE_RESTRICTION_ERROR', 'with `session_id`: the mode\'s file pattern or the project root refuses the mode file'],
    MODE_FILE_LOCKED,
    MODE_FILE_FENCED,
  ],
  update_mode: [
    ['MODE_NOT_FOUND', '`slug` names no mode'],
    ['VALIDATION_ERROR', 'a built-in mode, the scope\'s file does not define it, the result breaks the loading rules, or the file does not parse'],
    ...SESSION_GONE,
    ['TOOL_RESTRICTION_ERROR', 'with `session_id`: the session\'s mode has no edit group'],
    ['FILE_RESTRICTION_ERROR', 'with `session_id`: the mode\'s file pattern or the project root refuses the mode file'],
    MODE_FILE_LOCKED,
    MODE_FILE_FENCED,
  ],
  delete_mode: [
    ['MODE_NOT_FOUND', '`slug` names no mode'],
    ['VALIDATION_ERROR', 'a built-in mode, or the scope\'s file does not define it'],
    ...SESSION_GONE,
    ['TOOL_RESTRICTION_ERROR', 'with `session_id`: the session\'s mode has no edit group'],
    ['FILE_RESTRICTION_ERROR', 'with `session_id`: the mode file or rules folder is refused; or the rules folder leads out through a link'],
    MODE_FILE_LOCKED,
    MODE_FILE_FENCED,
  ],
  import_mode: [
    ['VALIDATION_ERROR', 'the text does not parse, a mode is invalid or given twice, too many or too large rules files, no project root, or the target mode file does not parse'],
    ['FILE_RESTRICTION_ERROR', 'a rules folder or file would lead outside the project (or home, for global) through a link; with `session_id`: the session\'s mode may not write the mode file or a rules folder'],
    ...SESSION_GONE,
    ['TOOL_RESTRICTION_ERROR', 'with `session_id`: the session\'s mode has no edit group'],
    MODE_FILE_LOCKED,
    MODE_FILE_FENCED,
  ],
  orchestrator_mode_list: [['FILE_RESTRICTION_ERROR', 'the mode-set folder is a link leading outside the project']],
  orchestrator_mode_validate: [SET_NAME_REFUSED, ['VALIDATION_ERROR', 'no set of that name, or the file is too large or not a regular file'], MODE_FILE_FENCED],
  orchestrator_mode_create: [SET_NAME_REFUSED, ['VALIDATION_ERROR', 'the set already exists, the template is missing or unreadable, or a custom role is malformed']],
  orchestrator_mode_select: [SET_NAME_REFUSED, ['VALIDATION_ERROR', 'the set is missing (and no template of that name), or invalid while `validate_first` is true'], MODE_FILE_FENCED],
  orchestrator_mode_backup: [SET_NAME_REFUSED, ['VALIDATION_ERROR', 'another process holds the mode-set lock, or no free backup name']],
  orchestrator_mode_restore: [SET_NAME_REFUSED, ['VALIDATION_ERROR', 'no backup of that name, or the backup is damaged'], MODE_FILE_FENCED],
  roo_ipc_status: [],
  roo_ipc_start_task: [IPC_NOT_READY, ['VALIDATION_ERROR', 'the connection dropped or the call was cancelled while waiting']],
  roo_ipc_send_message: [IPC_NOT_READY, ['VALIDATION_ERROR', 'neither `text` nor `images` was given']],
  roo_ipc_cancel_task: [IPC_NOT_READY],
  roo_ipc_close_task: [IPC_NOT_READY],
  roo_ipc_resume_task: [IPC_NOT_READY],
  roo_ipc_delete_queued_message: [IPC_NOT_READY],
  roo_ipc_get_modes: [IPC_NOT_READY, ['VALIDATION_ERROR', 'Roo did not answer within `ipc.query_timeout_ms`, or the call was cancelled']],
  roo_ipc_get_commands: [IPC_NOT_READY, ['VALIDATION_ERROR', 'Roo did not answer within `ipc.query_timeout_ms`, or the call was cancelled']],
  roo_ipc_get_models: [IPC_NOT_READY, ['VALIDATION_ERROR', 'Roo did not answer within `ipc.query_timeout_ms`, or the call was cancelled']],
  roo_ipc_poll_ai_messages: [],
  roo_ipc_poll_other_events: [],
  mode_matrix: [],
  try_mode_path: [['MODE_NOT_FOUND', '`mode_slug` names no mode']],
};

/** Tool families by name (or name prefix): heading and a note on when the family is listed. */
const FAMILIES = [
  { prefix: 'orchestrator_mode_', title: 'Mode-set tools', note: 'Manage mode-set files under `<project>/.task_orchestrator/` (`modesets.dir`). Every write takes a lock shared by all server processes of the project and is atomic. Results also carry the seed API\'s field names (`success`, `mode_created`, `backup_created`, `backup_path`, `backup_size`, `restored_at`, `backup_source`, `validation_status`, `fallback_mode`) beside ours, described as "Seed name" below; a failure\'s `data` names the set that stays in force as `fallback_mode`.' },
  { prefix: 'roo_ipc_', title: 'Roo Code IPC tools', note: 'Listed only when an IPC target is configured (`ipc.socket_path` / `ROO_CODE_IPC_SOCKET_PATH`, or `ipc.host` + `ipc.port`). See [ipc.md](ipc.md).' },
  { prefix: '', title: 'Mode and task tools', note: 'Always listed. Sessions live in memory unless `sessions.persistence.enabled` is true. The mode-file tools (`export_mode`, `import_mode`, `create_mode`, `update_mode`, `delete_mode`) are described under [Mode files](#mode-files).' },
  { names: ['mode_matrix', 'try_mode_path'], title: 'Modes view tools (MCP Apps)', note: 'Listed, and callable, only for a client that offers the MCP Apps extension (see [Modes view](#modes-view-mcp-apps)); to any other they are unknown tools. Each carries `_meta.ui.visibility: ["app"]`: a host calls it for the view and keeps it from the model.' },
];

/** Notifications the server sends. Each method must occur in the built server code. */
const NOTIFICATIONS = [
  ['notifications/message', 'Legacy: after the client called `logging/setLevel`, each log record at or above that level (`level`, `logger`, `data`); Roo IPC events are also sent here at level `info`. 2026-07-28: only the records made while serving a request whose `_meta` carried `io.modelcontextprotocol/logLevel`, before its answer.'],
  ['notifications/progress', 'Only for a request that carried `_meta.progressToken`; `message` from 2025-03-26 on.'],
  ['notifications/resources/list_changed', 'A watched mode file changed (any file of the source table under [Mode files](#mode-files), the active mode set), including through `import_mode`, `create_mode`, `update_mode` or `delete_mode`. The files are watched from the moment someone could be told: right after a legacy `initialize` is answered (so also for an HTTP session\'s GET stream), and before a `subscriptions/listen` is acknowledged; no earlier request has to load the catalogue. The notification follows an edit by the debounce (75 ms) plus the reload.'],
  ['notifications/prompts/list_changed', 'Same moments as `resources/list_changed`: prompts are one per mode.'],
  ['notifications/resources/updated', 'A subscribed `mode://` URI belongs to a mode that changed (`params.uri`); every subscribed `/system_prompt` also when the project\'s `AGENTS.md`, `AGENT.md` or `AGENTS.local.md` changed.'],
  ['notifications/subscriptions/acknowledged', '2026-07-28: first message of a `subscriptions/listen` stream, with the filter the server honours. In that era the change notifications above go only to the streams whose filter asked, tagged `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request\'s id).'],
  ['notifications/roo/event', 'With the IPC bridge on and `ipc.push_notifications` true: every event Roo Code sends (`eventName`, `payload`, `taskId?`).'],
  ['notifications/cancelled', 'The server gave up waiting for its own request to the client (`roots/list`, after 5 s).'],
];

// ---- sources ------------------------------------------------------------------------------------

function readSchemas() {
  return readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(SCHEMA_DIR, f), 'utf8')));
}

async function loadBuilt() {
  const need = ['rpc/errors.js', 'mcp/lifecycle.js', 'client/index.js', 'main.js'];
  for (const f of need) {
    if (!existsSync(join(DIST, f))) throw new Error(`dist/${f} is missing: run "npm run build" first`);
  }
  const errors = await import(new URL('../dist/rpc/errors.js', import.meta.url).href);
  const lifecycle = await import(new URL('../dist/mcp/lifecycle.js', import.meta.url).href);
  const client = await import(new URL('../dist/client/index.js', import.meta.url).href);
  const code = ['mcp/server.js', 'mcp/subscriptions.js', 'pipeline/processor.js'].map((f) => readFileSync(join(DIST, f), 'utf8')).join('\n');
  const eras = { ...await import(new URL('../dist/mcp/eras.js', import.meta.url).href), ...await import(new URL('../dist/mcp/subscriptions.js', import.meta.url).href) };
  const sources = await import(new URL('../dist/modes/sources.js', import.meta.url).href);
  const apps = await import(new URL('../dist/mcp/apps.js', import.meta.url).href);
  return { ERROR_CODES: errors.ERROR_CODES, PROTOCOL_VERSIONS: lifecycle.PROTOCOL_VERSIONS, eras, connectStdio: client.connectStdio, serverCode: code, MODE_SOURCES: sources.MODE_SOURCES, apps };
}

/** Asks the built server (built-in modes only: empty project and config dir) what it lists. */
async function askServer(connectStdio) {
  const home = mkdtempSync(join(tmpdir(), 'gen-api-'));
  const env = { ...process.env, HOME: home };
  for (const k of Object.keys(env)) if (k.startsWith('ROO_')) delete env[k];
  const client = await connectStdio({
    command: process.execPath,
    args: [join(DIST, 'main.js'), '--project-root', home, '--config-dir', join(home, '.roo-code'), '--log-level', 'error'],
    env, cwd: home, connectTimeoutMs: 20000, requestTimeoutMs: 20000,
  });
  try {
    return {
      capabilities: client.serverCapabilities,
      templates: await client.listResourceTemplates(),
      prompts: await client.listPrompts(),
    };
  } finally {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
}

// ---- markdown helpers ---------------------------------------------------------------------------

const cell = (text) => String(text).replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*');
const code = (text) => `\`${String(text).replace(/\|/g, '\\|')}\``;
const table = (head, rows) => [
  `| ${head.join(' | ')} |`,
  `|${head.map(() => '---').join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');

/** A short type description for a schema node: type, enum, const, bounds. */
function typeOf(s) {
  if (!s || typeof s !== 'object') return 'any';
  if (Array.isArray(s.enum)) return s.enum.map((v) => code(JSON.stringify(v))).join(' \\| ');
  if ('const' in s) return code(JSON.stringify(s.const));
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeOf).join(' \\| ');
  let t = Array.isArray(s.type) ? s.type.join(' \\| ') : (s.type ?? 'any');
  if (s.type === 'array' && s.items && typeof s.items === 'object' && s.items.type) t = `${s.items.type}[]`;
  const bounds = [];
  const range = (lo, hi) => (lo !== undefined && hi !== undefined ? `${lo}–${hi}` : lo !== undefined ? `≥ ${lo}` : `≤ ${hi}`);
  if (s.minLength !== undefined || s.maxLength !== undefined) bounds.push(`length ${range(s.minLength, s.maxLength)}`);
  if (s.minimum !== undefined || s.maximum !== undefined) bounds.push(range(s.minimum, s.maximum));
  if (s.maxItems !== undefined) bounds.push(`≤ ${s.maxItems} items`);
  return bounds.length ? `${t} (${bounds.join(', ')})` : t;
}

/** Rows for an object schema, descending one level into object properties and arrays of objects. */
function propertyRows(schema, prefix = '', depth = 0) {
  const props = schema && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const rows = [];
  for (const [name, sub] of Object.entries(props)) {
    rows.push({ name: `${prefix}${name}`, sub, required: required.has(name) });
    if (depth >= 1) continue;
    if (sub.type === 'object' && sub.properties && Object.keys(sub.properties).length) rows.push(...propertyRows(sub, `${prefix}${name}.`, depth + 1));
    const items = sub.items;
    if (sub.type === 'array' && items && items.type === 'object' && items.properties) rows.push(...propertyRows(items, `${prefix}${name}[].`, depth + 1));
  }
  return rows;
}

const hints = (a = {}) => {
  const out = [];
  if (a.readOnlyHint === true) out.push('read-only');
  if (a.destructiveHint === true) out.push('destructive');
  if (a.idempotentHint === true) out.push('idempotent');
  if (a.openWorldHint === true) out.push('talks to an outside program');
  return out.length ? out.join(', ') : 'changes state';
};

// ---- document -----------------------------------------------------------------------------------

function toolSection(spec, ERROR_CODES) {
  const out = [`#### ${code(spec.name)}${spec.title ? ` — ${spec.title}` : ''}`, '', spec.description, '', `Hints: ${hints(spec.annotations)}.`, ''];
  const inputs = propertyRows(spec.inputSchema);
  out.push('**Arguments**', '');
  if (inputs.length === 0) out.push('None.');
  else {
    out.push(table(['name', 'type', 'required', 'default', 'description'], inputs.map((r) => [
      code(r.name), typeOf(r.sub), r.required ? 'yes' : 'no',
      'default' in r.sub ? code(JSON.stringify(r.sub.default)) : '', cell(r.sub.description ?? ''),
    ])));
  }
  out.push('');
  const outputs = propertyRows(spec.outputSchema ?? {});
  out.push('**Result** (`metadata`, and `structuredContent` from 2025-06-18)', '');
  if (outputs.length === 0) out.push('An object; see the text report.');
  else {
    out.push(table(['field', 'type', 'always', 'description'], outputs.map((r) => [
      code(r.name), typeOf(r.sub), r.required ? 'yes' : '', cell(r.sub.description ?? ''),
    ])));
  }
  out.push('');
  const errs = [...COMMON_TOOL_ERRORS, ...TOOL_ERRORS[spec.name]];
  out.push('**Errors**', '');
  out.push(table(['code', 'name', 'when'], errs.map(([name, when]) => [code(ERROR_CODES[name]), name, when])));
  out.push('');
  return out.join('\n');
}

/** The MCP Apps view, from the table in src/mcp/apps.ts. */
function appsSection({ UI_EXTENSION, VIEW_MIME, VIEW_URI, VIEW_AUDIENCE, toolMeta }) {
  const out = ['## Modes view (MCP Apps)', ''];
  out.push(`For hosts that render MCP Apps views (the extension ${code(UI_EXTENSION)}, 2026-01-26), the server offers one view: the modes as a table (a row per mode with its icon, name, slug, source and file; a column per tool group, the edit group's file pattern and its description in the cell), the mode files' problems at \`file:line:column\`, and a box to try a path in a mode. It is one self-contained HTML page (inline script and style; it loads nothing, so it needs no Content-Security-Policy exception) that follows the host's theme and CSS variables. [protocol.md](protocol.md#the-modes-view-mcp-apps) says which hosts render it.`, '');
  out.push(`A client offers the extension with ${code(`{"extensions": {"${UI_EXTENSION}": {"mimeTypes": ["${VIEW_MIME}"]}}}`)} in its capabilities: in \`initialize\` (legacy era), or in each request's ${code('io.modelcontextprotocol/clientCapabilities')} (2026-07-28). Only then does the server declare the extension in its \`initialize\` answer, list and serve the view's resource and tools, and add \`_meta\` to the tools below; any other client gets exactly the answers it would get from a server without the view (a test holds them byte for byte the same whatever else the client declares, and equal to an MCP Apps client's answers less the view's parts). \`server/discover\` lists the extension to every client, as it describes the server.`, '');
  out.push(table(['tool', 'visibility', '_meta'], Object.entries(VIEW_AUDIENCE).map(([name, who]) => [code(name), who === 'app' ? 'the view only' : 'model and view', code(JSON.stringify(toolMeta(name)))])));
  out.push('');
  out.push(`\`ui/resourceUri\` is the flat key that hosts released before the extension was final still read. The resource ${code(VIEW_URI)} (${code(VIEW_MIME)}) is listed after the modes' resources; \`resources/read\` answers the page with \`_meta.ui.prefersBorder: true\`. The view calls \`mode_matrix\` through the host when it starts, and again on \`ui/notifications/tool-result\` and on \`notifications/resources/list_changed\` (which the server sends when a mode file changes and the host passes on); \`try_mode_path\` decides a path as \`validate_tool_use\` decides \`write_to_file\` on it, without a task. \`roo-modes-server modes --html FILE\` writes the same page with the modes inside, for any browser; that page has no box to try a path.`, '');
  return out.join('\n');
}

/** The two eras, from the tables in src/mcp/eras.ts. */
function erasSection(eras, legacyVersions, ERROR_CODES) {
  const { ERA_METHODS, CACHE_HINTS, MODERN_VERSIONS, META, ROO_EVENTS_EXTENSION, MAX_STREAMS } = eras;
  const yes = (v) => (v ? 'yes' : '—');
  const out = ['## Protocol eras', ''];
  out.push(`The first message of a connection picks its era, for good. \`initialize\` picks the **legacy** era (${legacyVersions.map(code).join(', ')}), served as negotiated. \`server/discover\`, or any request whose \`params._meta\` names ${code(META.protocolVersion)}, picks the **stateless** era (${MODERN_VERSIONS.map(code).join(', ')}) once it is admitted; a rejected request decides nothing. Requests that claim neither (a script piping lines) are served leniently as the latest legacy revision and decide nothing. A message of the other era is answered ${code(ERROR_CODES.INVALID_REQUEST)} (\`data.connection_protocol_version\` on a legacy connection, \`data.supported\` on a stateless one).`, '');
  out.push(`In the stateless era every request carries ${code(META.protocolVersion)} and ${code(META.clientCapabilities)} in \`params._meta\` (missing or malformed: ${code(ERROR_CODES.INVALID_PARAMS)} with \`data.key\`; a version not in \`${JSON.stringify(MODERN_VERSIONS)}\`: ${code(ERROR_CODES.UNSUPPORTED_PROTOCOL_VERSION)} with \`data.supported\` and \`data.requested\`), optionally ${code(META.clientInfo)} and ${code(META.logLevel)}. Every result carries \`resultType: "complete"\` and ${code(META.serverInfo)} in \`_meta\`; the cacheable ones also \`ttlMs\` and \`cacheScope\`. A missing or malformed resource is ${code(ERROR_CODES.INVALID_PARAMS)} with \`data.uri\` (the legacy era keeps ${code(ERROR_CODES.MODE_NOT_FOUND)} / ${code(ERROR_CODES.VALIDATION_ERROR)}); tools keep the application codes, except that arguments failing the tool's schema are an \`isError\` result carrying ${code(ERROR_CODES.VALIDATION_ERROR)} (the revision counts input validation among tool execution errors). The server never sends a request to the client, and nothing more is written for a request after \`notifications/cancelled\`.`, '');
  out.push('Methods by era (a legacy-only method on a stateless connection is ' + code(ERROR_CODES.METHOD_NOT_FOUND) + '):', '');
  out.push(table(['method', 'legacy', 'stateless'], Object.entries(ERA_METHODS).map(([m, e]) => [code(m), yes(e.legacy), yes(e.stateless)])));
  out.push('');
  out.push('Caching hints of the stateless era. Mode-derived results change when a mode file is edited: the watcher reloads within about 75 ms and tells listening clients at once, so the TTL only bounds how stale a client that does not listen may be; they hold the user\'s and the project\'s modes, hence `private`. The tool list, the templates and discovery are fixed for the life of the process and the same for every user.', '');
  out.push(table(['method', 'ttlMs', 'cacheScope'], Object.entries(CACHE_HINTS).map(([m, h]) => [code(m), String(h.ttlMs), code(h.cacheScope)])));
  out.push('');
  out.push(`\`subscriptions/listen\` replaces \`resources/subscribe\` and the unsolicited \`list_changed\` push: its \`notifications\` filter may ask for \`resourcesListChanged\`, \`promptsListChanged\` and \`resourceSubscriptions\` (\`mode://\` URIs); \`toolsListChanged\` is never acknowledged (the tool list does not change). With the IPC bridge on, the filter key ${code(ROO_EVENTS_EXTENSION)}: true streams Roo events as \`notifications/roo/event\`; the request must declare the extension of that name in its client capabilities (else ${code(ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY)}). The stream ends when the client cancels it (no answer) or when the input ends (a result carrying its subscription id). A connection may hold ${MAX_STREAMS} open streams; one more is ${code(ERROR_CODES.INVALID_REQUEST)}.`, '');
  return out.join('\n');
}

function checkTables(specs, built) {
  const problems = [];
  const names = new Set(specs.map((s) => s.name));
  for (const n of names) if (!(n in TOOL_ERRORS)) problems.push(`schemas/tools/${n}.json has no entry in TOOL_ERRORS`);
  for (const n of Object.keys(TOOL_ERRORS)) if (!names.has(n)) problems.push(`TOOL_ERRORS names ${n}, which has no schema`);
  const codeNames = Object.keys(built.ERROR_CODES);
  for (const n of codeNames) if (!(n in CODE_MEANING)) problems.push(`error ${n} has no meaning in CODE_MEANING`);
  for (const n of Object.keys(CODE_MEANING)) if (!codeNames.includes(n)) problems.push(`CODE_MEANING names ${n}, not in ERROR_CODES`);
  for (const list of Object.values(TOOL_ERRORS)) for (const [n] of list) if (!codeNames.includes(n)) problems.push(`TOOL_ERRORS uses unknown code ${n}`);
  for (const [method] of NOTIFICATIONS) if (!built.serverCode.includes(`'${method}'`)) problems.push(`the built server never sends ${method}`);
  if (problems.length) throw new Error(`docs/gen-api.mjs tables disagree with the source:\n  ${problems.join('\n  ')}`);
}

export async function generateApiDoc() {
  const specs = readSchemas();
  const built = await loadBuilt();
  checkTables(specs, built);
  const served = await askServer(built.connectStdio);
  const { ERROR_CODES, PROTOCOL_VERSIONS, MODE_SOURCES } = built;
  const order = Object.keys(TOOL_ERRORS);
  const byName = new Map(specs.map((s) => [s.name, s]));
  const familyOf = (name) => FAMILIES.find((f) => f.names?.includes(name)) ?? FAMILIES.find((f) => !f.names && name.startsWith(f.prefix));
  const groups = [...['', 'orchestrator_mode_', 'roo_ipc_'].map((p) => FAMILIES.find((f) => f.prefix === p)), FAMILIES.find((f) => f.names)]
    .map((f) => ({ ...f, tools: order.filter((n) => familyOf(n) === f).map((n) => byName.get(n)) }));

  const doc = [];
  doc.push('# roo-modes-server API reference', '');
  doc.push('<!-- Generated by docs/gen-api.mjs from schemas/tools/*.json, src/rpc/errors.ts and the built server. Do not edit by hand: run `npm run build && node docs/gen-api.mjs`. -->', '');
  doc.push(`The server speaks MCP over stdio, one JSON-RPC 2.0 message per line. Protocol revisions: ${PROTOCOL_VERSIONS.map(code).join(', ')}; a supported requested revision is echoed, anything else gets ${code(PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.length - 1])}.`, '');
  doc.push(`Capabilities declared by \`initialize\`: ${Object.entries(served.capabilities).map(([k, v]) => `${code(k)} ${code(JSON.stringify(v))}`).join(', ')} (\`completions\` from 2025-03-26 on).`, '');
  doc.push(`It also speaks the stateless revision ${built.eras.MODERN_VERSIONS.map(code).join(', ')}: see [Protocol eras](#protocol-eras).`, '');
  doc.push('## Contents', '');
  for (const g of groups) {
    doc.push(`- ${g.title}: ${g.tools.map((t) => `[${t.name}](#${t.name})`).join(', ')}`);
  }
  doc.push('- [Protocol eras](#protocol-eras), [Mode files](#mode-files), [Resources](#resources), [Modes view (MCP Apps)](#modes-view-mcp-apps), [Prompts](#prompts), [Completions](#completions), [Notifications](#notifications), [Error codes](#error-codes)', '');
  doc.push(erasSection(built.eras, PROTOCOL_VERSIONS, ERROR_CODES));

  doc.push('## Mode files', '');
  doc.push('Custom modes come from these files, highest precedence first; the first file that defines a slug wins, and built-in modes come last (a custom mode with a built-in slug takes its place). `list_modes`, `get_mode_info` and `modes --json` show the `file` of each mode.', '');
  doc.push(table(['row', 'modes are', 'file'], MODE_SOURCES.map((r) => [code(r.id), r.source, cell(r.about)])));
  doc.push('');
  doc.push('Every living dialect of the format loads: Roo Code 3.52 (`rulesFiles` inside a mode is accepted, as in its export files), Zoo Code (the `web` group with its tool `fetch_web_content`; `allowedMcpServers`, which limits the `mcp` group to those servers\' `mcp__<server>__*` tools, intersected with an `mcp` `tools` allow-list) and Kilo Code 5.x (`iconName`, `source: organization`, the `browser` group). Keys no dialect knows are ignored with one warning per file, as Roo\'s loader ignores them; they never cause a mode to be skipped.', '');
  doc.push('`export_mode` and `import_mode` (and the `export-mode` / `import-mode` commands) read and write Roo\'s export format. `create_mode`, `update_mode` and `delete_mode` change mode files in place: YAML keeps its comments and untouched modes byte for byte, JSON stays JSON; every write is atomic, under a cross-process lock (the writes of one server take turns in the order they came), after a backup into `.roo/backups/` (project) or `<config dir>/backups/` (global), of which the newest `backups.keep` are kept. An import swaps in its rules folders and mode file together, so a crash leaves the old or the new state (finished at the next start).', '');

  doc.push('## Tools', '');
  doc.push('Every tool result carries `content` (one text block: a report for people), `metadata` (the object described under **Result**) and, for 2025-06-18 and later, the same object as `structuredContent`; `tools/list` then also gives each tool\'s `title` and `outputSchema`. Arguments are checked against the input schema before the tool runs.', '',
    'An argument key the tool does not define is ignored and named in a `warnings` list of strings at the top of the result (and in a second text block); with `server.strict` (or `--strict`) it is refused with -32004. Long calls (mode-set backup, restore, validate with repair; `roo_ipc_start_task`, `roo_ipc_get_*`) send `notifications/progress` when the request\'s `_meta` carries a `progressToken`.', '');
  doc.push('With `server.tool_errors: "result"` a tool failure is not a JSON-RPC error but a result with `isError: true`, whose `structuredContent` (and `metadata.error`) holds the same `{code, message, data}`.', '');
  for (const g of groups) {
    doc.push(`### ${g.title}`, '', g.note, '');
    for (const spec of g.tools) {
      doc.push(`<a id="${spec.name}"></a>`, '');
      doc.push(toolSection(spec, ERROR_CODES));
    }
  }

  doc.push('## Resources', '');
  doc.push('Each mode is readable as three resources. `resources/list` lists them for every mode in force (paginated by `server.page_size`); `resources/templates/list` gives the templates below. A resource\'s `name` is programmatic (`<slug>`, `<slug>_config`, `<slug>_system_prompt`: ASCII, no spaces); its `title` (from 2025-06-18) is the mode\'s display name, e.g. `💻 Code - Configuration`. `resources/subscribe` is supported: a subscribed URI gets `notifications/resources/updated` when its mode changes.', '');
  doc.push(table(['URI template', 'name', 'title (2025-06-18 on)', 'MIME type', 'content'], served.templates.map((t) => [code(t.uriTemplate), code(t.name), cell(t.title ?? ''), code(t.mimeType), cell(t.description ?? '')])));
  doc.push('');
  doc.push('`mode://{slug}` holds `slug`, `name`, `source`, `file` (when from a file), `description`, `when_to_use`, `role_definition`, `custom_instructions` and `tool_groups` (each of the seven groups with `enabled` and, where restricted, `file_regex`), plus `allowedMcpServers`, `iconName` and `declared_source` when the mode has them. `mode://{slug}/config` holds the mode exactly as a `.roomodes` entry does, ready to paste back into a file: Roo\'s camelCase keys (`slug`, `name`, `iconName`, `roleDefinition`, `whenToUse`, `description`, `customInstructions`, `groups` as Roo writes them, `allowedMcpServers`, and `source`: what the file declares, else what Roo\'s loader gives a mode, `project` from `.roomodes` and `global` otherwise), absent fields left out, never `null`. `mode://{slug}/system_prompt` is the composed system prompt, including rules files read fresh on each read, in Roo\'s order: the mode\'s rules, then the project\'s `AGENTS.md` (or `AGENT.md` when it is missing or empty) and `AGENTS.local.md` (off with `prompts.use_agent_rules: false`), then the rules for every mode.', '');
  doc.push(table(['code', 'when'], [
    [code(ERROR_CODES.VALIDATION_ERROR), 'the URI is not one of the three forms'],
    [code(ERROR_CODES.MODE_NOT_FOUND), 'the slug names no mode'],
  ]));
  doc.push('');

  doc.push(appsSection(built.apps));

  doc.push('## Prompts', '');
  doc.push('One prompt per mode, named by its slug. `prompts/get` returns the mode\'s system prompt as a user message, followed by the `task` argument as a second user message when given. An unknown name is answered with ' + code(ERROR_CODES.INVALID_PARAMS) + ' listing the available names.', '');
  doc.push('With only the built-in modes:', '');
  doc.push(table(['name', 'argument', 'description'], served.prompts.map((p) => [
    code(p.name), (p.arguments ?? []).map((a) => `${code(a.name)}${a.required ? '' : ' (optional)'}`).join(', '), cell(p.description ?? ''),
  ])));
  doc.push('');

  doc.push('## Completions', '');
  doc.push('`completion/complete` (2025-03-26 and later) completes the `{slug}` variable of the resource templates with the slugs in force that start with the typed prefix; anything else gets an empty list.', '');

  doc.push('## Notifications', '');
  doc.push('Notifications the server sends (it never answers a notification):', '');
  doc.push(table(['method', 'when'], NOTIFICATIONS.map(([m, w]) => [code(m), w])));
  doc.push('');
  doc.push('The server asks the client one thing: `roots/list`, after `notifications/initialized`, when no project root was configured and the client declared `roots`. The first `file://` root becomes the project root.', '');

  doc.push('## Error codes', '');
  doc.push('An error\'s `data` is a string, or an object with a `message` and precise fields (JSON path, available slugs, file and line).', '');
  doc.push(table(['code', 'name', 'meaning'], Object.entries(ERROR_CODES).map(([name, value]) => [code(value), name, CODE_MEANING[name]])));
  doc.push('');
  return doc.join('\n');
}

// ---- command line -------------------------------------------------------------------------------

function diffSummary(expected, actual) {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const lines = [];
  let count = 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    count++;
    if (lines.length < 10) {
      lines.push(`  line ${i + 1}:`);
      lines.push(`    expected: ${a[i] === undefined ? '(end of file)' : a[i].slice(0, 160)}`);
      lines.push(`    found:    ${b[i] === undefined ? '(end of file)' : b[i].slice(0, 160)}`);
    }
  }
  return `${count} line(s) differ (expected ${a.length} lines, found ${b.length}); first differences:\n${lines.join('\n')}`;
}

async function main(argv) {
  const check = argv.includes('--check');
  const toStdout = argv.includes('--stdout');
  const fileAt = argv.indexOf('--file');
  const file = fileAt >= 0 ? argv[fileAt + 1] : TARGET;
  if (!file) { process.stderr.write('gen-api: --file needs a path\n'); return 2; }
  const doc = await generateApiDoc();
  if (toStdout) { process.stdout.write(doc); return 0; }
  if (!check) { writeFileSync(file, doc); process.stderr.write(`gen-api: wrote ${file}\n`); return 0; }
  const current = existsSync(file) ? readFileSync(file, 'utf8') : null;
  if (current === doc) { process.stderr.write(`gen-api: ${file} is up to date\n`); return 0; }
  process.stderr.write(current === null
    ? `gen-api: ${file} does not exist; run "node docs/gen-api.mjs"\n`
    : `gen-api: ${file} is stale; run "node docs/gen-api.mjs" to regenerate it.\n${diffSummary(doc, current)}\n`);
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    process.stderr.write(`gen-api: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  });
}
