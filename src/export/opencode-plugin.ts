// The OpenCode / Kilo Code 7 plugin (`--plugin`): one dependency-free ES module whose
// tool.execute.before asks roo-modes-server for the mode's decision and throws to block. Text only.
import type { ExportContext } from './source.js';

/** Where each agent loads project plugins from (OpenCode: plugins/ or plugin/; Kilo: plugin/). */
export const PLUGIN_PATHS: Readonly<Record<'opencode' | 'kilo', string>> = {
  opencode: '.opencode/plugins/roo-modes.js',
  kilo: '.kilo/plugin/roo-modes.js',
};

/**
 * How long one decision may take before the call is blocked. A cold start of the hook is a Node
 * start plus the mode files; 30 s leaves room for a loaded machine and still ends a hung hook.
 */
const DECISION_TIMEOUT_MS = 30_000;
/** A decision is one short JSON line; more than this is not an answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** How the plugin asks: the hook command (launcher words from the export), or the HTTP endpoint. */
export interface PluginTransport {
  entryCommand: ExportContext['entryCommand'];
  /** `serve --http`'s hook endpoint (`…/hooks/claude-code`); the plugin adds `?mode=SLUG`. */
  url?: string;
}

/**
 * The plugin's text for `agents` (agent name → mode slug). It holds the launcher words (or the
 * URL) and the table, nothing of this machine: the project root is where the file itself sits (two
 * folders up), found when it loads. Only agents in the table are judged; any other is left alone.
 * Every outcome but "no objection" or a deny decision blocks the call.
 */
export function openCodePlugin(agents: ReadonlyMap<string, string>, how: PluginTransport): string {
  const table = Object.fromEntries([...agents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const slugs = [...new Set(agents.values())].sort().join(', ');
  const asked = how.url ?? `${how.entryCommand.join(' ')} hook claude-code`;
  return [
    `// Exported by roo-modes-server from modes ${slugs}; export again rather than editing.`,
    `// Before each tool call of an agent exported from a mode, asks ${asked} for that mode's`,
    '// decision and throws to block the call. When no decision can be had (the command is missing,',
    '// fails, hangs or answers something else; the endpoint is down or refuses) it blocks as well.',
    "import { spawn } from 'node:child_process';",
    "import { fileURLToPath } from 'node:url';",
    '',
    '/** The command that decides (resolved on PATH), then its first arguments. */',
    `const LAUNCHER = ${JSON.stringify(how.entryCommand)};`,
    '/** When set, the decision is asked over HTTP (bearer token from ROO_MODES_HTTP_TOKEN) instead. */',
    `const ENDPOINT = ${JSON.stringify(how.url ?? null)};`,
    '/** Agent name -> mode slug, for the agents exported from modes. Other agents are not judged. */',
    `const MODES = ${JSON.stringify(table, null, 2)};`,
    `const TIMEOUT_MS = ${DECISION_TIMEOUT_MS};`,
    `const MAX_ANSWER = ${MAX_ANSWER_BYTES};`,
    RUNTIME,
  ].join('\n');
}

/** The part of the plugin that does not vary: asking, reading the answer, blocking. */
const RUNTIME = String.raw`/** The project: this file is <root>/.opencode/plugins/roo-modes.js or <root>/.kilo/plugin/roo-modes.js. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/[\\/]$/, '');
/**
 * A launcher word's placeholders: $CLAUDE_PROJECT_DIR in braces is this project (as Claude Code
 * fills it in for the same words), any other such name comes from the environment.
 */
const expand = (word) => word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name) => (name === 'CLAUDE_PROJECT_DIR' ? ROOT : process.env[name] ?? ''));
/** Windows runs npm's launchers (.cmd) only through its shell; each word is quoted for it. */
const WINDOWS = process.platform === 'win32';
const winWord = (w) => (/^[A-Za-z0-9_.:\\/=@+-]+$/.test(w) ? w : '"' + w + '"');

/** { deny: reason } or { fail: why } or {} (no objection), from the hook's exit and output. */
function overCommand(slug, event) {
  return new Promise((settle) => {
    const words = [...LAUNCHER.map(expand), 'hook', 'claude-code', '--mode', slug, '--project-root', ROOT];
    const options = { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true };
    let child;
    try {
      child = WINDOWS ? spawn(words.map(winWord).join(' '), { ...options, shell: true }) : spawn(words[0], words.slice(1), options);
    } catch (err) {
      settle({ fail: 'cannot start ' + LAUNCHER[0] + ': ' + err.message });
      return;
    }
    let out = '';
    let errText = '';
    let done = false;
    const finish = (answer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      settle(answer);
    };
    const timer = setTimeout(() => { child.kill('SIGKILL'); finish({ fail: 'no answer within ' + TIMEOUT_MS + ' ms' }); }, TIMEOUT_MS);
    child.on('error', (err) => finish({ fail: 'cannot run ' + LAUNCHER[0] + ': ' + err.message }));
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      if (out.length > MAX_ANSWER) { child.kill('SIGKILL'); finish({ fail: 'the answer is too long' }); }
    });
    child.stderr.setEncoding('utf8').on('data', (text) => { if (errText.length < MAX_ANSWER) errText += text; });
    child.stdin.on('error', () => { /* it may exit before reading; the exit status decides */ });
    child.stdin.end(JSON.stringify(event));
    child.on('close', (code, signal) => {
      if (code !== 0) return finish({ fail: 'it exited with ' + (code ?? signal) + (errText.trim() ? ': ' + errText.trim() : '') });
      finish(out.trim() === '' ? {} : denial(out));
    });
  });
}

/** The same answers from the endpoint: 2xx with {} or a denial; any other status or body blocks. */
async function overHttp(slug, event) {
  const url = new URL(ENDPOINT);
  url.searchParams.set('mode', slug);
  const headers = { 'content-type': 'application/json' };
  if (process.env.ROO_MODES_HTTP_TOKEN) headers.authorization = 'Bearer ' + process.env.ROO_MODES_HTTP_TOKEN;
  let status;
  let text;
  try {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(event), signal: AbortSignal.timeout(TIMEOUT_MS) });
    status = response.status;
    text = (await response.text()).slice(0, MAX_ANSWER);
  } catch (err) {
    return { fail: 'cannot reach ' + url.origin + url.pathname + ': ' + (err.cause?.code ?? err.cause?.message ?? err.code ?? err.message) };
  }
  if (status < 200 || status > 299) return { fail: 'HTTP ' + status + (text.trim() ? ': ' + text.trim().slice(0, 200) : '') };
  try {
    const body = JSON.parse(text);
    if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return {};
  } catch { /* reported by denial() */ }
  return denial(text);
}

/** A Claude Code deny decision's reason, else a failure quoting what came instead. */
function denial(text) {
  try {
    const decision = JSON.parse(text).hookSpecificOutput;
    if (decision && decision.permissionDecision === 'deny' && typeof decision.permissionDecisionReason === 'string') {
      return { deny: decision.permissionDecisionReason };
    }
  } catch { /* not JSON: reported below */ }
  return { fail: 'unexpected answer: ' + text.trim().slice(0, 200) };
}

export const RooModesPlugin = async ({ directory }) => {
  /** sessionID -> the agent of its latest model call (a session can change agent between turns). */
  const agentOf = new Map();
  const remember = async (input) => {
    if (input && typeof input.sessionID === 'string' && typeof input.agent === 'string') agentOf.set(input.sessionID, input.agent);
  };
  return {
    'chat.message': remember,
    'chat.params': remember,
    'tool.execute.before': async (input, output) => {
      const agent = agentOf.get(input.sessionID);
      if (agent === undefined) {
        throw new Error('roo-modes-server: blocked: cannot tell which agent made this ' + input.tool + ' call (no model call seen for session ' + input.sessionID + ')');
      }
      if (!Object.prototype.hasOwnProperty.call(MODES, agent)) return;
      const slug = MODES[agent];
      const event = { hook_event_name: 'PreToolUse', tool_name: input.tool, tool_input: output.args ?? {}, cwd: directory || ROOT };
      const answer = ENDPOINT ? await overHttp(slug, event) : await overCommand(slug, event);
      if (answer.deny !== undefined) throw new Error(answer.deny);
      if (answer.fail !== undefined) throw new Error('roo-modes-server: blocked: mode ' + slug + ' could not be checked (' + (ENDPOINT ?? LAUNCHER.join(' ') + ' hook claude-code') + '): ' + answer.fail);
    },
  };
};
`;
