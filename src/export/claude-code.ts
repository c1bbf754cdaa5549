// The Claude Code target: a subagent file per mode (.claude/agents/<name>.md) whose tool list
// follows the mode's groups, with a PreToolUse hook enforcing the edit pattern. Builds text only.
import type { GroupName } from '../modes/types.js';
import { toYaml, type Plain } from '../yaml/write.js';
import { hookCommand, toolsByGroups, withFrontmatter, type ExportContext, type ExportMode, type TargetOutput } from './source.js';

/** Claude Code's tools for each Roo group (what the subagent's `tools` line lists). */
export const CLAUDE_TOOLS: Readonly<Record<GroupName, readonly string[]>> = {
  read: ['Read', 'Glob', 'Grep', 'LS'],
  edit: ['Edit', 'MultiEdit', 'Write', 'NotebookEdit'],
  browser: ['WebFetch', 'WebSearch'],
  // Zoo Code's web group (fetch_web_content) is the same reach as the browser's here.
  web: ['WebFetch', 'WebSearch'],
  command: ['Bash'],
  mcp: [],
  modes: [],
};
/** Available in every Roo mode, so in every exported agent. */
const ALWAYS = ['TodoWrite'];

/** The matcher (a regex over tool_name) for the hook: every Claude Code tool that writes a file. */
export const EDIT_MATCHER = CLAUDE_TOOLS.edit.join('|');

/** Claude Code wants lowercase letters, digits and hyphens. */
export const agentName = (slug: string): string => slug.toLowerCase();

export function hookEntry(command: string): Plain {
  return { matcher: EDIT_MATCHER, hooks: [{ type: 'command', command }] };
}

export function claudeCodeAgent(m: ExportMode, ctx: ExportContext): TargetOutput {
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
    front.hooks = { PreToolUse: [hookEntry(hookCommand(ctx, mode.slug))] };
    if (edit.regex === null) lost.push(`the edit pattern ${edit.fileRegex} is unusable, so the hook refuses every edit (as Roo does)`);
  }
  const yaml = toYaml(front).trimEnd().split('\n');
  return { path: `.claude/agents/${agentName(mode.slug)}.md`, text: withFrontmatter(m, yaml, m.body), lost };
}
