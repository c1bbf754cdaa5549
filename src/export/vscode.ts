// The VS Code target: a custom agent per mode (.github/agents/<slug>.agent.md) listing VS Code's
// tool sets for the mode's groups, with an agent-scoped hook for the edit pattern. Builds text only.
import type { GroupName } from '../modes/types.js';
import { parseQualifiedName } from '../modes/mcp-names.js';
import { toYaml, type Plain } from '../yaml/write.js';
import { hookCommand, toolsByGroups, withFrontmatter, type ExportContext, type ExportMode, type TargetOutput } from './source.js';

/** VS Code's tool sets for each Roo group. */
export const VSCODE_TOOLS: Readonly<Record<GroupName, readonly string[]>> = {
  read: ['read', 'search'],
  edit: ['edit'],
  browser: ['web'],
  // Zoo Code's web group (fetch_web_content) is the same reach as the browser's here.
  web: ['web'],
  command: ['execute'],
  mcp: [],
  modes: [],
};
const ALWAYS = ['todo'];

/** `mcp__github__*` → `github/*`; null when the pattern does not name one server. */
function vscodeMcpName(pattern: string): string | null {
  const q = parseQualifiedName(pattern);
  if (q === null || q.server.includes('*')) return null;
  return `${q.server}/${q.tool}`;
}

export function vscodeAgent(m: ExportMode, ctx: ExportContext): TargetOutput {
  const { mode } = m;
  const lost: string[] = [];
  const groups = mode.compiled.groups;
  const tools = [...toolsByGroups(VSCODE_TOOLS, groups, true), ...ALWAYS];
  if (groups.has('mcp')) {
    const list = mode.groups.map((g) => (Array.isArray(g) && g[0] === 'mcp' ? g[1].tools : undefined)).find((t) => t !== undefined);
    if (list === undefined) lost.push('MCP tools: VS Code lists MCP tools per server (<server>/*); add the servers this mode should use');
    for (const p of list ?? []) {
      const name = vscodeMcpName(p);
      if (name === null) lost.push(`MCP pattern ${p}: VS Code names MCP tools per server`);
      else tools.push(name);
    }
  }
  if (groups.has('modes')) tools.push('agent');
  const front: Record<string, Plain> = { name: mode.slug, description: m.description, tools };
  if (mode.compiled.edit) {
    // VS Code sends every tool call to an agent's hooks; --edits-only leaves the others to `tools`.
    front.hooks = { PreToolUse: [{ type: 'command', command: hookCommand(ctx, mode.slug, ['--edits-only']) }] };
    lost.push('the edit pattern is enforced only where VS Code runs agent-scoped hooks (a preview feature); elsewhere it is described only');
  }
  const yaml = toYaml(front).trimEnd().split('\n');
  return { path: `.github/agents/${mode.slug}.agent.md`, text: withFrontmatter(m, yaml, m.body), lost };
}
