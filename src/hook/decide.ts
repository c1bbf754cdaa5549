// The hook's one door to the path decision: validate_tool_use's rules (group, fileRegex, project
// confinement, links leading out) applied to one tool call. It never adds a rule of its own.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CompiledMode, PermissionDecision } from '../modes/permissions.js';
import { decideToolUse } from '../modes/decide-tool-use.js';

/**
 * Decides one call exactly as validate_tool_use does: the one decision (src/modes/decide-tool-use.ts).
 * Claude Code sends absolute paths while validate_tool_use takes paths relative to the project, so
 * a path inside the root is passed relative, as a client would pass it; one outside stays
 * absolute, and confinement refuses it.
 */
export function decideHookCall(mode: CompiledMode, tool: string, path: string | undefined, projectRoot: string): PermissionDecision {
  const given = path === undefined ? undefined : asProjectPath(path, projectRoot);
  return decideToolUse(mode, tool, given === undefined ? {} : { file_path: given }, { projectRoot, confineToProjectRoot: true });
}

function asProjectPath(path: string, root: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(resolve(root), path);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  return inside ? rel.split(sep).join('/') : path;
}
