// The Claude Code target: a subagent file per mode (.claude/agents/<name>.md) whose tool list
// follows the mode's groups, with a fail-closed PreToolUse hook for the edit pattern. Builds text only.
import type { GroupName } from '../modes/types.js';
import { toYaml, type Plain } from '../yaml/write.js';
import { launcherWords, toolsByGroups, withFrontmatter, type ExportContext, type ExportMode, type TargetOutput } from './source.js';

/** Claude Code's current tools for each Roo group (what the subagent's `tools` line lists). */
export const CLAUDE_TOOLS: Readonly<Record<GroupName, readonly string[]>> = {
  // Claude Code's Read(path) rules cover these four: LSP reads too. LS is gone.
  read: ['Read', 'Glob', 'Grep', 'LSP'],
  // Its Edit(path) rules cover these three; MultiEdit is legacy (see EDIT_MATCHER).
  edit: ['Edit', 'Write', 'NotebookEdit'],
  browser: ['WebFetch', 'WebSearch'],
  // Zoo Code's web group (fetch_web_content) is the same reach as the browser's here.
  web: ['WebFetch', 'WebSearch'],
  command: ['Bash', 'PowerShell'],
  mcp: [],
  modes: [],
};
/** Available in every Roo mode (its to-do list), so in every exported agent: the old tool and its successors. */
const ALWAYS = ['TodoWrite', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate'];

/**
 * The hook's matcher: every tool that writes a file, plus MultiEdit for clients old enough to have
 * it. Letters and `|` only, so Claude Code reads it as an exact list, not a regex that could match
 * another tool's name.
 */
export const EDIT_MATCHER = [...CLAUDE_TOOLS.edit, 'MultiEdit'].join('|');

/** The first Claude Code release that honours `onFailure: "block"`; older ones ignore it and fail open. */
export const MIN_CLAUDE_CODE_FAIL_CLOSED = '2.1.295';

/** The token `serve --http` checks, passed to HTTP hooks through allowedEnvVars. */
export const HTTP_TOKEN_ENV = 'ROO_MODES_HTTP_TOKEN';

/** Claude Code wants lowercase letters, digits and hyphens. */
export const agentName = (slug: string): string => slug.toLowerCase();

/**
 * One hook handler: for `slug`, or (null) for whichever exported agent is calling (by agent_type).
 * `onFailure: "block"` sits on the handler, where Claude Code reads it: a missing launcher, a crash
 * or a timeout then blocks the edit instead of letting it through.
 */
export function claudeHook(ctx: ExportContext, slug: string | null): Plain {
  if (ctx.hook.kind === 'http') {
    const url = new URL(ctx.hook.url);
    if (slug === null) url.searchParams.delete('mode');
    else url.searchParams.set('mode', slug);
    return {
      type: 'http', url: url.href, headers: { Authorization: `Bearer \${${HTTP_TOKEN_ENV}}` },
      allowedEnvVars: [HTTP_TOKEN_ENV], timeout: 30, onFailure: 'block',
    };
  }
  // Exec form: no shell, `command` found on PATH, ${CLAUDE_PROJECT_DIR} substituted in every word.
  const [command, ...args] = launcherWords(ctx, ['hook', 'claude-code', ...(slug === null ? ['--by-agent'] : ['--mode', slug])]);
  return { type: 'command', command: command!, args, onFailure: 'block' };
}

/** The matcher group holding one handler, as settings and frontmatter take it. */
export function hookEntry(handler: Plain): Plain {
  return { matcher: EDIT_MATCHER, hooks: [handler] };
}

/**
 * The agent file for one mode. `hooks`: whether the frontmatter carries the mode's PreToolUse hook
 * (a project's agents); a plugin's agents get none, since Claude Code ignores hooks there and the
 * plugin's own hooks.json enforces them. `folder`: where the file goes.
 */
function agentFile(m: ExportMode, ctx: ExportContext, hooks: boolean, folder: string): TargetOutput {
  const { mode } = m;
  const lost: string[] = [];
  const groups = mode.compiled.groups;
  const front: Record<string, Plain> = { name: agentName(mode.slug), description: m.description };
  const allowed = [...toolsByGroups(CLAUDE_TOOLS, groups, true), ...ALWAYS];
  const mcpList = mode.groups.map((g) => (Array.isArray(g) && g[0] === 'mcp' ? g[1].tools : undefined)).find((t) => t !== undefined);
  if (groups.has('mcp') && mcpList === undefined) {
    // Every MCP tool is allowed: list what is forbidden instead, so MCP tools stay inherited.
    const denied = toolsByGroups(CLAUDE_TOOLS, groups, false);
    if (denied.length > 0) front.disallowedTools = denied.join(', ');
  } else {
    const exact = (mcpList ?? []).filter((t) => !t.includes('*'));
    const wild = (mcpList ?? []).filter((t) => t.includes('*'));
    if (wild.length > 0) lost.push(`MCP patterns ${wild.join(', ')}: Claude Code's tools line names MCP tools one by one; add them by hand`);
    front.tools = [...allowed, ...exact].join(', ');
  }
  if (groups.has('modes')) lost.push('modes group (switch_mode, new_task): Claude Code has no modes to switch to');
  const edit = mode.compiled.edit;
  if (edit) {
    if (hooks) front.hooks = { PreToolUse: [hookEntry(claudeHook(ctx, mode.slug))] };
    if (edit.regex === null) lost.push(`the edit pattern ${edit.fileRegex} is unusable, so the hook refuses every edit (as Roo does)`);
  }
  const yaml = toYaml(front).trimEnd().split('\n');
  return { path: `${folder}/${agentName(mode.slug)}.md`, text: withFrontmatter(m, yaml, m.body), lost };
}

/** A project's subagent (.claude/agents/<name>.md), its PreToolUse hook in its frontmatter. */
export const claudeCodeAgent = (m: ExportMode, ctx: ExportContext): TargetOutput => agentFile(m, ctx, true, '.claude/agents');

/** A plugin's agent (agents/<name>.md), enforced by the plugin's hooks.json. */
export const pluginAgent = (m: ExportMode, ctx: ExportContext): TargetOutput => agentFile(m, ctx, false, 'agents');
