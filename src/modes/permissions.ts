// Whether a mode may use a tool: Roo's group rules, decided by one pure function over a mode
// compiled once per load. It never compiles regexes per check and never judges a path (src/paths does).
import type { GroupName, Mode } from './types.js';
import { ALWAYS_AVAILABLE_TOOLS, groupOfTool, isAlwaysAvailable, resolveToolAlias, TOOL_GROUPS } from './tool-groups.js';
import { compileToolPatterns, parseQualifiedName } from './mcp-names.js';
import { fileRegexProblem } from './regex-safety.js';
import { clientLabel, clientTool, closestToolNames, type ClientTool } from './client-tools.js';

/** What a mode allows, prepared once per catalogue load. */
export interface CompiledRules {
  readonly groups: ReadonlySet<GroupName>;
  /** The edit group's file restriction; `regex` is null when the pattern is unusable (then nothing matches, as in Roo). */
  readonly edit: { readonly regex: RegExp | null; readonly fileRegex: string; readonly description?: string } | null;
  /** The mcp group's allow-list of qualified names, when it has one. */
  readonly mcpTools: ((name: string) => boolean) | null;
  /** Zoo Code's allowedMcpServers: the servers whose tools pass the mcp group; null = all. */
  readonly mcpServers: ReadonlySet<string> | null;
}

export interface CompiledMode extends Mode {
  readonly compiled: CompiledRules;
}

export interface PermissionDecision {
  allowed: boolean;
  group: GroupName | 'always' | null;
  reason: string;
  restriction?: { fileRegex: string; description?: string };
  /** Why it was refused: the tool (its group), the file, or a name no agent uses. */
  error?: 'tool' | 'file' | 'unknown';
  /** Set when the name is another agent's (Claude Code, VS Code, OpenCode/Kilo, Cursor): who uses it. */
  client?: ClientTool;
}

export interface PermissionContext { projectRoot: string | null; confineToProjectRoot: boolean }

/** The tool-level half of a decision, plus the pattern a path given to it must match. */
export interface ToolCheck extends PermissionDecision {
  /** The edit group's compiled pattern when the tool edits under a restriction; unusable patterns match nothing. */
  pattern?: RegExp;
}

/** Roo's own tool names (for "closest known names"). */
const ROO_TOOL_NAMES: readonly string[] = [...Object.values(TOOL_GROUPS).flat(), ...ALWAYS_AVAILABLE_TOOLS];

/** Matches nothing: an edit restricted by an unusable pattern refuses every file, as in Roo. */
const NOTHING = /(?!)/;

export function compileMode(mode: Mode): CompiledMode {
  const groups = new Set<GroupName>();
  let edit: CompiledRules['edit'] = null;
  let mcpTools: CompiledRules['mcpTools'] = null;
  for (const entry of mode.groups) {
    const [name, options] = typeof entry === 'string' ? [entry, undefined] : entry;
    groups.add(name);
    if (name === 'edit' && options?.fileRegex !== undefined) {
      const usable = fileRegexProblem(options.fileRegex) === null;
      edit = {
        regex: usable ? new RegExp(options.fileRegex) : null,
        fileRegex: options.fileRegex,
        ...(options.description !== undefined ? { description: options.description } : {}),
      };
    }
    if (name === 'mcp' && options?.tools !== undefined) mcpTools = compileToolPatterns(options.tools);
  }
  const mcpServers = mode.allowedMcpServers ? new Set(mode.allowedMcpServers) : null;
  return { ...mode, compiled: Object.freeze({ groups, edit, mcpTools, mcpServers }) };
}

/** Whether an MCP tool name belongs to one of the servers (both the mcp__ and Roo's mcp_ forms). */
function serverAllowed(tool: string, servers: ReadonlySet<string>): boolean {
  const parsed = parseQualifiedName(tool);
  if (parsed !== null) return servers.has(parsed.server);
  // Roo's dynamic name mcp_<server>_<tool> cannot be split unambiguously: any allowed prefix will do.
  for (const server of servers) if (tool.startsWith(`mcp_${server}_`)) return true;
  return false;
}

/**
 * checkTool's answers, per compiled mode: an answer depends on the mode and the tool's name alone,
 * and a mode is compiled anew at every load of the mode files, so a reload starts afresh (the old
 * modes and their answers go with them). Callers choose the names, so each mode keeps a bounded
 * number; the answers are frozen, since every caller gets the same object.
 */
const TOOL_CHECKS = new WeakMap<CompiledMode, Map<string, ToolCheck>>();
const MAX_TOOL_CHECKS_PER_MODE = 512;

/** Decides the tool alone (group, aliases, MCP allow-list); decideToolUse adds the path. */
export function checkTool(mode: CompiledMode, toolName: string): ToolCheck {
  const known = TOOL_CHECKS.get(mode);
  const hit = known?.get(toolName);
  if (hit !== undefined) return hit;
  const answer = Object.freeze(judgeTool(mode, toolName));
  const table = known ?? new Map<string, ToolCheck>();
  if (known === undefined) TOOL_CHECKS.set(mode, table);
  if (table.size < MAX_TOOL_CHECKS_PER_MODE) table.set(toolName, answer);
  return answer;
}

/** The tool-level decision itself (checkTool keeps its answers). */
function judgeTool(mode: CompiledMode, toolName: string): ToolCheck {
  const tool = resolveToolAlias(toolName);
  // Roo's own names win; another agent's name stands for the Roo group the table gives it.
  const known = groupOfTool(tool) === undefined && !isAlwaysAvailable(tool) ? clientTool(tool) : undefined;
  // Another agent's web tools (WebFetch, webfetch, …) pass through Zoo's web group too.
  const client = known?.group === 'browser' && !mode.compiled.groups.has('browser') && mode.compiled.groups.has('web')
    ? { ...known, group: 'web' as const } : known;
  const label = tool !== toolName ? `"${toolName}" (an alias of ${tool})`
    : client ? `"${toolName}" (${clientLabel(client)}; Roo group ${client.group === 'always' ? 'none: always available' : `"${client.group}"`})`
      : `"${toolName}"`;
  const modeLabel = `${mode.name} (${mode.slug})`;
  const from = client ? { client } : {};
  if (isAlwaysAvailable(tool) || client?.group === 'always') {
    return { allowed: true, group: 'always', ...from, reason: `Tool ${label} is available in every mode.` };
  }
  // MCP tools: our qualified mcp__<server>__<tool>, and Roo's own dynamic mcp_<server>_<tool>
  // names (Roo allows any mcp_ name in a mode with the mcp group).
  const qualified = parseQualifiedName(tool) !== null
    || (tool.startsWith('mcp_') && !tool.startsWith('mcp__') && tool.length > 4 && groupOfTool(tool) === undefined);
  const group = qualified ? 'mcp' : groupOfTool(tool) ?? (client?.group as GroupName | undefined);
  if (group === undefined) {
    // Not a restriction of this mode: no agent calls a tool by this name. Say so and offer the nearest names.
    const near = closestToolNames(tool, ROO_TOOL_NAMES);
    const anyMcp = mode.compiled.groups.has('mcp') && !mode.compiled.mcpTools && !mode.compiled.mcpServers ? ' MCP tools are named mcp__<server>__<tool>.' : '';
    return {
      allowed: false, group: null, error: 'unknown',
      reason: `Unknown tool ${label}: neither Roo nor Claude Code, VS Code, OpenCode/Kilo or Cursor has a tool by this name.${near.length > 0 ? ` Closest known names: ${near.join(', ')}.` : ''}${anyMcp}`,
    };
  }
  const rules = mode.compiled;
  if (!rules.groups.has(group)) {
    const has = [...rules.groups].join(', ') || 'none (only the always-available tools)';
    return {
      allowed: false, group, error: 'tool', ...from,
      reason: `Tool ${label} is not allowed in ${modeLabel}: it belongs to the "${group}" group, which this mode does not have. The mode's groups: ${has}.`,
    };
  }
  if (qualified && rules.mcpTools && !rules.mcpTools(tool)) {
    return {
      allowed: false, group, error: 'tool', ...from,
      reason: `MCP tool ${label} is not in the mcp allow-list of ${modeLabel}.`,
    };
  }
  if (qualified && rules.mcpServers && !serverAllowed(tool, rules.mcpServers)) {
    return {
      allowed: false, group, error: 'tool', ...from,
      reason: `MCP tool ${label} belongs to a server ${modeLabel} may not use (allowedMcpServers: ${[...rules.mcpServers].join(', ') || 'none'}).`,
    };
  }

  if (group === 'edit' && rules.edit) {
    const { regex, fileRegex, description } = rules.edit;
    const restriction = description === undefined ? { fileRegex } : { fileRegex, description };
    return {
      allowed: true, group, restriction, pattern: regex ?? NOTHING, ...from,
      reason: `Tool ${label} is allowed in ${modeLabel} (the "${group}" group; only files matching ${fileRegex}).`,
    };
  }
  return { allowed: true, group, ...from, reason: `Tool ${label} is allowed in ${modeLabel} (the "${group}" group).` };
}
