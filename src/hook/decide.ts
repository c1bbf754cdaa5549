// The hooks' one door to validate_tool_use's rules, applied to one event for the command hook and
// the HTTP endpoint alike, and the answers each host reads. It never adds a rule of its own.
import { isAbsolute, relative, sep } from 'node:path';
import { readLayerText, type Catalogue } from '../modes/catalogue.js';
import { mayDefineSlug } from '../modes/one-mode.js';
import { checkTool, type CompiledMode, type PermissionDecision, type ToolCheck } from '../modes/permissions.js';
import { decideFileUse, resolvedRoot, takesFile } from '../modes/decide-tool-use.js';
import { pathsOf, type ToolEvent } from './event.js';

/**
 * Decides one call exactly as validate_tool_use does: the one decision (src/modes/decide-tool-use.ts).
 * Hosts send absolute paths while validate_tool_use takes paths relative to the project, so a path
 * inside the root is passed relative, as a client would pass it; one outside stays absolute, and
 * confinement refuses it.
 */
export function decideHookCall(mode: CompiledMode, tool: string, path: string | undefined, projectRoot: string, checked: ToolCheck = checkTool(mode, tool)): PermissionDecision {
  const given = path === undefined ? undefined : asProjectPath(path, projectRoot);
  return decideFileUse(mode, checked, tool, given === undefined ? {} : { file_path: given }, { projectRoot, confineToProjectRoot: true });
}

function asProjectPath(path: string, root: string): string {
  if (!isAbsolute(path)) return path;
  const base = resolvedRoot(root);
  // The common case without path.relative: a path spelled under the root with no `.`, `..` or
  // empty component (nothing for relative's normalisation to change) is the text after the root.
  if (sep === '/' && path.length > base.length + 1 && path.startsWith(base) && (base === '/' || path.charCodeAt(base.length) === 0x2f)) {
    const rest = path.slice(base === '/' ? 1 : base.length + 1);
    if (!NOT_PLAIN.test(rest)) return rest;
  }
  const rel = relative(base, path);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  return inside ? rel.split(sep).join('/') : path;
}

/** A component that path.relative would normalise: empty (`//`, a trailing `/`), `.` or `..`. */
const NOT_PLAIN = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** A hook's verdict: no objection (the host's own rules decide), or a refusal with its reason. */
export type Verdict = { deny: false } | { deny: true; reason: string };

/**
 * Judges one event under `mode`. A tool no agent is known to call gets no objection: hosts such as
 * VS Code send every tool to the hook, whatever its matcher, and blocking the ones we cannot name
 * would block the editor. A known tool is judged by the mode's groups; one that reads or edits files
 * is judged on every file it names (an edit that names none is refused under a file pattern).
 * Throws HookInputError when a file field of a known tool is malformed.
 */
export function judgeEvent(mode: CompiledMode, event: ToolEvent, projectRoot: string, editsOnly = false): Verdict {
  // Cursor names an MCP tool `MCP:<tool>`, without its server: judged as Roo's use_mcp_tool, by the
  // mcp group alone (an allow-list of server tools cannot be matched without the server).
  const cursorMcp = event.toolName.startsWith(CURSOR_MCP_PREFIX) && event.toolName.length > CURSOR_MCP_PREFIX.length;
  const name = cursorMcp ? 'use_mcp_tool' : event.toolName;
  const tool = checkTool(mode, name);
  if (tool.group === null || (editsOnly && tool.group !== 'edit')) return NO_OBJECTION_VERDICT;
  const paths = takesFile(tool) && tool.allowed ? pathsOf(event.input) : NO_PATHS;
  // Each file in turn, up to the first refused one, which is the answer.
  let refused = paths.length === 0 ? decideHookCall(mode, name, undefined, projectRoot, tool) : undefined;
  for (const path of paths) {
    const decision = decideHookCall(mode, name, path, projectRoot, tool);
    if (!decision.allowed) { refused = decision; break; }
  }
  if (refused === undefined || refused.allowed) return NO_OBJECTION_VERDICT;
  return { deny: true, reason: `Mode ${mode.slug} (roo-modes-server): ${cursorMcp ? `${event.toolName} is an MCP tool. ` : ''}${refused.reason}` };
}

const CURSOR_MCP_PREFIX = 'MCP:';
const NO_PATHS: readonly string[] = Object.freeze([]);
const NO_OBJECTION_VERDICT: Verdict = Object.freeze({ deny: false });

/**
 * The mode an exported Claude Code subagent stands for: its name is the slug lower-cased (agentName
 * in src/export/claude-code.ts; a unit test holds the two together). An exact slug wins over a
 * lower-cased one.
 */
export function modeForAgent(modes: readonly CompiledMode[], agentType: string): CompiledMode | undefined {
  return modes.find((m) => m.slug === agentType) ?? modes.find((m) => m.slug.toLowerCase() === agentType);
}

/**
 * When no mode is exported as `agentType`, whether that is only because a mode file with problems
 * (it failed to load, or an entry was skipped) may define it: then the answer cannot be known and
 * the caller fails closed rather than let an exported agent's calls through unjudged. Returns the
 * reason, or null when the agent is simply not one of ours (Claude Code's Explore, a hand-written one).
 */
export async function unknowableAgent(catalogue: Catalogue, agentType: string): Promise<string | null> {
  for (const issue of catalogue.issues) {
    const { text } = await readLayerText(issue.file);
    if (text === null || mayDefineSlug(text, agentType) || text.toLowerCase().includes(agentType)) {
      return `cannot tell whether subagent "${agentType}" is an exported mode: ${issue.file}:${issue.line ?? 1}: ${issue.message}`;
    }
  }
  return null;
}

/** Claude Code's (and VS Code's) answer that stops the call; the reason reaches the model. */
export function claudeDenial(reason: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}

/** The text of claudeDenial(reason) as JSON.stringify writes it (a unit test holds them equal); half its cost per refusal. */
const CLAUDE_DENIAL_HEAD = JSON.stringify(claudeDenial('')).slice(0, -4);
export function claudeDenialJson(reason: string): string {
  return `${CLAUDE_DENIAL_HEAD}${JSON.stringify(reason)}}}`;
}

/** Cursor's answer that stops the call: the user sees one message, the agent the other. */
export function cursorDenial(reason: string): Record<string, unknown> {
  return { permission: 'deny', user_message: reason, agent_message: reason };
}
