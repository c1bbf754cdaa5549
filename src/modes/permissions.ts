// Whether a mode may use a tool (and on which path): Roo's rules plus path confinement, decided
// by one pure function over a mode compiled once per load. It never compiles regexes per check.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { GroupName, Mode } from './types.js';
import { groupOfTool, isAlwaysAvailable, resolveToolAlias } from './tool-groups.js';
import { compileToolPatterns, parseQualifiedName } from './mcp-names.js';
import { fileRegexProblem } from './regex-safety.js';
import { toolsAllowed } from './describe.js';
import { clientLabel, clientTool, knownClientNames, type ClientTool } from './client-tools.js';

/** What a mode allows, prepared once per catalogue load. */
export interface CompiledRules {
  readonly groups: ReadonlySet<GroupName>;
  /** The edit group's file restriction; `regex` is null when the pattern is unusable (then nothing matches, as in Roo). */
  readonly edit: { readonly regex: RegExp | null; readonly fileRegex: string; readonly description?: string } | null;
  /** The mcp group's allow-list of qualified names, when it has one. */
  readonly mcpTools: ((name: string) => boolean) | null;
}

export interface CompiledMode extends Mode {
  readonly compiled: CompiledRules;
}

export interface PermissionDecision {
  allowed: boolean;
  group: GroupName | 'always' | null;
  reason: string;
  restriction?: { fileRegex: string; description?: string };
  error?: 'tool' | 'file';
  /** Set when the name is another agent's (Claude Code, VS Code, OpenCode/Kilo, Cursor): who uses it. */
  client?: ClientTool;
}

export interface PermissionContext { projectRoot: string | null; confineToProjectRoot: boolean }

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
  return { ...mode, compiled: Object.freeze({ groups, edit, mcpTools }) };
}

// Any C0 control character or DEL: no legitimate file name needs one, and they hide tricks in logs.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
/** Longer paths are refused: no file system needs them, and they bound the cost of a regex test. */
export const MAX_PATH_LENGTH = 4096;

function pickPath(args: { path?: unknown; file_path?: unknown }): { path?: string; bad?: unknown } {
  for (const v of [args.path, args.file_path]) {
    if (v === undefined || v === null || v === '') continue;
    return typeof v === 'string' ? { path: v } : { bad: v };
  }
  return {};
}

/** Null when `path` (already `/`-separated) stays inside the root, else why it does not. */
function escapeProblem(path: string, projectRoot: string | null): string | null {
  const root = resolve(projectRoot ?? process.cwd());
  if (process.platform !== 'win32' && /^[a-zA-Z]:\//.test(path)) return `"${path}" is an absolute Windows path, outside the project root ${root}`;
  const target = resolve(root, path);
  const rel = relative(root, target);
  if (rel === '') return null;
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    return `"${path}" resolves to ${target}, outside the project root ${root}`;
  }
  return null;
}

export function checkToolUse(
  mode: CompiledMode,
  toolName: string,
  args: { path?: unknown; file_path?: unknown },
  ctx: PermissionContext,
): PermissionDecision {
  const tool = resolveToolAlias(toolName);
  // Roo's own names win; another agent's name stands for the Roo group the table gives it.
  const client = groupOfTool(tool) === undefined && !isAlwaysAvailable(tool) ? clientTool(tool) : undefined;
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
    const hint = ` Other agents' names are accepted too — ${knownClientNames().join('; ')}.`;
    const anyMcp = mode.compiled.groups.has('mcp') && !mode.compiled.mcpTools ? ', and any MCP tool (mcp__<server>__<tool>)' : '';
    return {
      allowed: false, group: null, error: 'tool',
      reason: `Unknown tool ${label}.${hint} Tools allowed in ${modeLabel}: ${toolsAllowed(mode).join(', ')}${anyMcp}.`,
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

  const picked = pickPath(args);
  if (picked.bad !== undefined) {
    return { allowed: false, group, error: 'file', ...from, reason: `The path given to ${label} must be a string.` };
  }
  let restriction: PermissionDecision['restriction'];
  if (picked.path !== undefined) {
    const raw = picked.path;
    if (raw.length > MAX_PATH_LENGTH) {
      return { allowed: false, group, error: 'file', ...from, reason: `The path given to ${label} is longer than ${MAX_PATH_LENGTH} characters; refused.` };
    }
    if (CONTROL_CHARS.test(raw)) {
      return { allowed: false, group, error: 'file', ...from, reason: `The path given to ${label} contains control characters; refused.` };
    }
    const path = raw.replace(/\\/g, '/');
    if (ctx.confineToProjectRoot) {
      const problem = escapeProblem(path, ctx.projectRoot);
      if (problem) return { allowed: false, group, error: 'file', ...from, reason: `Path refused: ${problem}.` };
    }
    if (group === 'edit' && rules.edit) {
      const { regex, fileRegex, description } = rules.edit;
      restriction = description === undefined ? { fileRegex } : { fileRegex, description };
      if (!regex || !regex.test(path)) {
        return {
          allowed: false, group, error: 'file', restriction, ...from,
          reason: `Tool '${toolName}' in mode '${mode.name}' can only edit files matching pattern: ${fileRegex}${description ? ` (${description})` : ''}. Got: ${raw}`,
        };
      }
    }
  } else if (group === 'edit' && rules.edit) {
    const { fileRegex, description } = rules.edit;
    restriction = description === undefined ? { fileRegex } : { fileRegex, description };
  }
  const limit = restriction ? `; only files matching ${restriction.fileRegex}` : '';
  return {
    allowed: true, group, ...(restriction ? { restriction } : {}), ...from,
    reason: `Tool ${label} is allowed in ${modeLabel} (the "${group}" group${limit}).`,
  };
}
