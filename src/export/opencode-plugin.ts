// The OpenCode / Kilo Code 7 plugin (`--plugin`): one dependency-free ES module whose
// tool.execute.before asks `roo-modes-server hook claude-code` and throws to block. Builds text only.
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

/**
 * The plugin's text for `agents` (agent name → mode slug). It holds the launcher words and the
 * table, nothing of this machine: the project root is where the file itself sits (two folders
 * up), found when it loads. Only agents in the table are judged; any other agent is left alone.
 * Every outcome but "no output, exit 0" (allow) or a deny decision blocks the call.
 */
export function openCodePlugin(agents: ReadonlyMap<string, string>, ctx: Pick<ExportContext, 'entryCommand'>): string {
  const table = Object.fromEntries([...agents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const slugs = [...new Set(agents.values())].sort().join(', ');
  return `// Exported by roo-modes-server from modes ${slugs}; export again rather than editing.
// Before each tool call of an agent exported from a mode, asks \`${[...ctx.entryCommand, 'hook', 'claude-code'].join(' ')}\`
// for that mode's decision and throws to block the call. When no decision can be had (the command is
// missing, fails, hangs or answers something else) it blocks as well: it fails closed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The command that decides (resolved on PATH), then its first arguments. */
const LAUNCHER = ${JSON.stringify(ctx.entryCommand)};
/** Agent name -> mode slug, for the agents exported from modes. Other agents are not judged. */
const MODES = ${JSON.stringify(table, null, 2)};
const TIMEOUT_MS = ${DECISION_TIMEOUT_MS};
const MAX_ANSWER = ${MAX_ANSWER_BYTES};
/** The project: this file is <root>/.opencode/plugins/roo-modes.js or <root>/.kilo/plugin/roo-modes.js. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/[\\\\/]$/, '');

/** { deny: reason } or { fail: why } or {} (no objection), never a rejection. */
function decide(slug, tool, args, cwd) {
  return new Promise((settle) => {
    const event = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: tool, tool_input: args ?? {}, cwd });
    let child;
    try {
      child = spawn(LAUNCHER[0], [...LAUNCHER.slice(1), 'hook', 'claude-code', '--mode', slug, '--project-root', ROOT], { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    } catch (err) {
      settle({ fail: \`cannot start \${LAUNCHER[0]}: \${err.message}\` });
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
    const timer = setTimeout(() => { child.kill('SIGKILL'); finish({ fail: \`no answer within \${TIMEOUT_MS} ms\` }); }, TIMEOUT_MS);
    child.on('error', (err) => finish({ fail: \`cannot run \${LAUNCHER[0]}: \${err.message}\` }));
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      if (out.length > MAX_ANSWER) { child.kill('SIGKILL'); finish({ fail: 'the answer is too long' }); }
    });
    child.stderr.setEncoding('utf8').on('data', (text) => { if (errText.length < MAX_ANSWER) errText += text; });
    child.stdin.on('error', () => { /* it may exit before reading; the exit status decides */ });
    child.stdin.end(event);
    child.on('close', (code, signal) => {
      if (code !== 0) return finish({ fail: \`it exited with \${code ?? signal}\${errText.trim() ? \`: \${errText.trim()}\` : ''}\` });
      if (out.trim() === '') return finish({});
      try {
        const decision = JSON.parse(out).hookSpecificOutput;
        if (decision && decision.permissionDecision === 'deny' && typeof decision.permissionDecisionReason === 'string') {
          return finish({ deny: decision.permissionDecisionReason });
        }
      } catch { /* not JSON: reported below */ }
      finish({ fail: \`unexpected answer: \${out.trim().slice(0, 200)}\` });
    });
  });
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
        throw new Error(\`roo-modes-server: blocked: cannot tell which agent made this \${input.tool} call (no model call seen for session \${input.sessionID})\`);
      }
      if (!Object.prototype.hasOwnProperty.call(MODES, agent)) return;
      const slug = MODES[agent];
      const answer = await decide(slug, input.tool, output.args, directory || ROOT);
      if (answer.deny !== undefined) throw new Error(answer.deny);
      if (answer.fail !== undefined) throw new Error(\`roo-modes-server: blocked: mode \${slug} could not be checked (\${LAUNCHER.join(' ')} hook claude-code): \${answer.fail}\`);
    },
  };
};
`;
}
