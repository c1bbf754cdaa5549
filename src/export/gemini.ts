// The Gemini CLI target: a subagent per mode (.gemini/agents/<name>.md) whose tools list follows the
// mode's groups; the policy rules (gemini-policy.ts) hold its edits to the pattern. Builds text only.
import type { GroupName } from '../modes/types.js';
import { parseQualifiedName } from '../modes/mcp-names.js';
import { toYaml, type Plain } from '../yaml/write.js';
import { toolsByGroups, withFrontmatter, type ExportMode, type TargetOutput } from './source.js';
import { GEMINI_POLICY_FILE, GEMINI_SHELL_TOOL, GEMINI_WRITE_TOOLS, modeRules } from './gemini-policy.js';

/**
 * Gemini CLI's built-in tools for each Roo group (gemini-cli-core 0.61, tools/tool-names.js). An
 * agent file may list only names Gemini knows, or it fails to load.
 */
export const GEMINI_TOOLS: Readonly<Record<GroupName, readonly string[]>> = {
  read: ['read_file', 'read_many_files', 'glob', 'grep_search', 'list_directory'],
  edit: [...GEMINI_WRITE_TOOLS],
  browser: ['web_fetch', 'google_web_search'],
  // Zoo Code's web group (fetch_web_content) is the same reach as the browser's here.
  web: ['web_fetch', 'google_web_search'],
  command: [GEMINI_SHELL_TOOL],
  mcp: ['list_mcp_resources', 'read_mcp_resource'],
  modes: [],
};
/** Available in every Roo mode (its to-do list, its questions, skills). */
const ALWAYS = ['write_todos', 'ask_user', 'activate_skill'];

/** Gemini names MCP tools mcp_<server>_<tool> and splits at the first `_`, so a server name must have none. */
const MCP_PART = /^[A-Za-z0-9.:-]+$/;

/** `mcp__github__*` → `mcp_github_*`; null when Gemini has no name for it. */
function geminiMcpName(pattern: string): string | null {
  const q = parseQualifiedName(pattern);
  if (q === null || !MCP_PART.test(q.server) || !(q.tool === '*' || /^[A-Za-z0-9_.:-]+$/.test(q.tool))) return null;
  return `mcp_${q.server}_${q.tool}`;
}

/** Gemini fills `${word}` in an agent's instructions from its inputs (and fails on unknown ones). */
const PLACEHOLDER = /\$\{(\w+)\}/g;

export function geminiAgent(m: ExportMode): TargetOutput {
  const { mode } = m;
  const groups = mode.compiled.groups;
  const rules = modeRules(mode);
  const lost = [...rules.notes];
  const kept = new Set(rules.writeTools);
  const tools = [...toolsByGroups(GEMINI_TOOLS, groups, true).filter((t) => !(GEMINI_WRITE_TOOLS as readonly string[]).includes(t) || kept.has(t)), ...ALWAYS];
  if (groups.has('mcp')) {
    const list = mode.groups.map((g) => (Array.isArray(g) && g[0] === 'mcp' ? g[1].tools : undefined)).find((t) => t !== undefined);
    const patterns = list ?? (mode.allowedMcpServers?.map((s) => `mcp__${s}__*`) ?? ['mcp__*']);
    for (const p of patterns) {
      const name = p === 'mcp__*' ? 'mcp_*' : geminiMcpName(p);
      if (name === null) lost.push(`MCP pattern ${p}: Gemini CLI names MCP tools mcp_<server>_<tool> (server without "_"); add it by hand`);
      else tools.push(name);
    }
  }
  if (groups.has('modes')) lost.push('modes group (switch_mode, new_task): a Gemini subagent cannot switch modes or start other subagents');
  const body = m.body.replace(PLACEHOLDER, '{$1}');
  if (body !== m.body) {
    lost.push('${…} placeholders in the instructions: Gemini CLI fills them from the subagent\'s inputs, so they are written as {…}');
  }
  const front: Record<string, Plain> = { name: rules.agent, display_name: mode.name, description: m.description, tools };
  const yaml = toYaml(front).trimEnd().split('\n');
  return { path: `.gemini/agents/${rules.agent}.md`, text: withFrontmatter(m, yaml, `${body}\n${limits(rules.denies.length > 0, mode.compiled.edit?.fileRegex)}\n`), lost };
}

/** What the subagent is told about the policy, so it gives paths the rules can judge. */
function limits(enforced: boolean, fileRegex: string | undefined): string {
  if (!enforced) return '';
  const lines = ['## Limits of this subagent', '', `\`${GEMINI_POLICY_FILE}\` refuses calls outside this mode's limits.`];
  if (fileRegex !== undefined) {
    lines.push(`Edit only files whose path relative to the project root matches the regular expression \`${fileRegex}\`, and give write_file and replace that project-relative path (forward slashes, no \`.\` or \`..\` segments), even where you are told to use absolute paths.`);
  }
  return lines.join('\n');
}
