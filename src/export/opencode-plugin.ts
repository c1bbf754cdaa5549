// The OpenCode / Kilo Code 7 plugin (`--plugin`): one dependency-free ES module whose
// tool.execute.before decides in process (or asks serve --http) and throws to block. Text only.

/** Where each agent loads project plugins from (OpenCode: plugins/ or plugin/; Kilo: plugin/). */
export const PLUGIN_PATHS: Readonly<Record<'opencode' | 'kilo', string>> = {
  opencode: '.opencode/plugins/roo-modes.js',
  kilo: '.kilo/plugin/roo-modes.js',
};

/**
 * Where the decision code goes: beside the plugin's folder, not in it (the agents import every
 * script there as a plugin), in the same agent folder so a clone carries both.
 */
export const DECISION_PATHS: Readonly<Record<'opencode' | 'kilo', string>> = {
  opencode: '.opencode/roo-modes/decision.cjs',
  kilo: '.kilo/roo-modes/decision.cjs',
};

/**
 * How long an HTTP decision may take before the call is blocked: room for a loaded machine, and
 * still an end to a hung server.
 */
const HTTP_TIMEOUT_MS = 30_000;
/** A decision is one short JSON line; more than this is not an answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** How the plugin decides: with the decision file exported beside it, or by asking the endpoint. */
export type PluginTransport =
  | { kind: 'in-process'; version: string; target: 'opencode' | 'kilo'; sha256: string }
  | { kind: 'http'; version: string; url: string };

/**
 * The plugin's text for `agents` (agent name → mode slug). It holds the table and the decision
 * file's hash (or the URL), nothing of this machine: the project root is where the file itself sits
 * (two folders up), found when it runs. Only agents in the table are judged; any other is left alone.
 * Every outcome but "no objection" or a deny blocks the call.
 */
export function openCodePlugin(agents: ReadonlyMap<string, string>, how: PluginTransport): string {
  const table = Object.fromEntries([...agents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const slugs = [...new Set(agents.values())].sort().join(', ');
  const head = [`// Exported by roo-modes-server ${how.version} from modes ${slugs}; export again rather than editing.`];
  if (how.kind === 'in-process') {
    const file = relativeToPlugin(how.target);
    head.push(
      '// Before each tool call of an agent exported from a mode, decides in this process with the',
      `// decision code in ${file} (what \`roo-modes-server hook\` decides) and throws to block`,
      '// the call. When that file is missing, changed or fails, every call of those agents is blocked.',
      '// It imports nothing until the first call: a plugin that fails to import is dropped without a word.',
      '',
      '/** Agent name -> mode slug, for the agents exported from modes. Other agents are not judged. */',
      `const MODES = ${JSON.stringify(table, null, 2)};`,
      '/** The decision code (relative to this file), and the sha256 of what follows its two header lines. */',
      `const DECISION = ${JSON.stringify({ file, sha256: how.sha256 })};`,
      IN_PROCESS,
    );
  } else {
    head.push(
      `// Before each tool call of an agent exported from a mode, asks ${how.url} for that mode's`,
      '// decision and throws to block the call. When no decision can be had (the endpoint is down,',
      '// refuses, hangs or answers something else) it blocks as well.',
      '',
      '/** Agent name -> mode slug, for the agents exported from modes. Other agents are not judged. */',
      `const MODES = ${JSON.stringify(table, null, 2)};`,
      '/** The endpoint; the bearer token comes from ROO_MODES_HTTP_TOKEN. */',
      `const ENDPOINT = ${JSON.stringify(how.url)};`,
      `const TIMEOUT_MS = ${HTTP_TIMEOUT_MS};`,
      `const MAX_ANSWER = ${MAX_ANSWER_BYTES};`,
      OVER_HTTP,
    );
  }
  return [...head, COMMON].join('\n');
}

/** The decision file as the plugin names it: from the plugin's folder, up one, into roo-modes/. */
const relativeToPlugin = (target: 'opencode' | 'kilo'): string => `../${DECISION_PATHS[target].split('/').slice(1).join('/')}`;

/**
 * The plugin's own module URL, spliced into the text below: the build's bundler rewrites every
 * `import.meta.url` in the modules it bundles, text included.
 */
const META_URL = ['import', 'meta', 'url'].join('.');

/** The in-process `asker`: loads the decision file on first use (again after a failure) and asks it. */
const IN_PROCESS = String.raw`
/**
 * Loads the decision code and makes its decider for this project: only a file whose content still
 * hashes to DECISION.sha256 is run. Throws saying why not.
 */
async function loadDecider() {
  const [{ readFileSync }, { createHash }, { createRequire }, { fileURLToPath }] = await Promise.all([
    import('node:fs'), import('node:crypto'), import('node:module'), import('node:url'),
  ]);
  const file = fileURLToPath(new URL(DECISION.file, ${META_URL}));
  const root = fileURLToPath(new URL('../..', ${META_URL})).replace(/[\\/]$/, '');
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error('cannot read ' + file + ' (' + (err.code ?? err.message) + ')');
  }
  const header = text.indexOf('\n', text.indexOf('\n') + 1);
  if (header < 0 || createHash('sha256').update(text.slice(header + 1), 'utf8').digest('hex') !== DECISION.sha256) {
    throw new Error(file + ' is not the decision code exported with this plugin (its content differs)');
  }
  const code = createRequire(${META_URL})(file);
  if (typeof code.createDecider !== 'function') throw new Error(file + ' gives no createDecider');
  return code.createDecider(root);
}

/** ask(slug, tool, args) -> { deny: false } | { deny: true, reason } | { fail }, never throwing. */
function asker() {
  let decider = null;
  return async (slug, tool, args) => {
    decider ??= loadDecider().catch((err) => { decider = null; throw err; });
    let decide;
    try {
      decide = await decider;
    } catch (err) {
      return { fail: 'the decision code cannot be loaded: ' + err.message + '; export again with roo-modes-server export --plugin' };
    }
    return decide.decide(slug, tool, args);
  };
}
`;

/** The HTTP `asker`: posts the event to serve --http's hook endpoint and reads Claude Code's answer. */
const OVER_HTTP = String.raw`
/** ask(slug, tool, args) -> { deny: false } | { deny: true, reason } | { fail }, never throwing. */
function asker(directory) {
  return async (slug, tool, args) => {
    const url = new URL(ENDPOINT);
    url.searchParams.set('mode', slug);
    const headers = { 'content-type': 'application/json' };
    if (process.env.ROO_MODES_HTTP_TOKEN) headers.authorization = 'Bearer ' + process.env.ROO_MODES_HTTP_TOKEN;
    const event = { hook_event_name: 'PreToolUse', tool_name: tool, tool_input: args, cwd: directory };
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
    let body;
    try { body = JSON.parse(text); } catch { body = undefined; }
    if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return { deny: false };
    const decision = body?.hookSpecificOutput;
    if (decision && decision.permissionDecision === 'deny' && typeof decision.permissionDecisionReason === 'string') {
      return { deny: true, reason: decision.permissionDecisionReason };
    }
    return { fail: 'unexpected answer: ' + text.trim().slice(0, 200) };
  };
}
`;

/** What both kinds share: knowing each session's agent, and blocking on anything but "no objection". */
// The plugin's export is spliced in (\${'export'}) so that no line of this module starts with
// `export` inside the text: the build's bundler reads a module's exports line by line.
const COMMON = String.raw`
${'export'} const RooModesPlugin = async ({ directory } = {}) => {
  /** sessionID -> the agent of its latest model call (a session can change agent between turns). */
  const agentOf = new Map();
  const remember = async (input) => {
    if (input && typeof input.sessionID === 'string' && typeof input.agent === 'string') agentOf.set(input.sessionID, input.agent);
  };
  const ask = asker(directory);
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
      let answer;
      try {
        answer = await ask(slug, input.tool, output.args ?? {});
      } catch (err) {
        answer = { fail: String(err && err.message || err) };
      }
      if (answer && answer.deny === false) return;
      if (answer && answer.deny === true) throw new Error(answer.reason);
      throw new Error('roo-modes-server: blocked: mode ' + slug + ' could not be checked: ' + (answer && answer.fail || 'no answer'));
    },
  };
};
`;
