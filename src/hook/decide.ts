// The hook's one door to the path decision: validate_tool_use's rules (group, fileRegex, project
// confinement, links leading out) applied to one tool call. It never adds a rule of its own.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { checkToolUse, type CompiledMode, type PermissionDecision } from '../modes/permissions.js';
import type { SymlinkGuard } from '../modes/confine.js';

/**
 * Decides one call exactly as validate_tool_use does today: checkToolUse, then the link check of
 * src/mcp/mode-tools.ts. When the shared path decision lands (one function for both), this body
 * becomes a call to it. Claude Code sends absolute paths while validate_tool_use takes paths
 * relative to the project, so a path inside the root is passed relative, as a client would pass
 * it; one outside stays absolute, and confinement refuses it.
 */
export async function decideToolUse(
  mode: CompiledMode, tool: string, path: string | undefined, projectRoot: string, symlinks: SymlinkGuard,
): Promise<PermissionDecision> {
  const ctx = { projectRoot, confineToProjectRoot: true };
  const given = path === undefined ? undefined : asProjectPath(path, projectRoot);
  const decision = checkToolUse(mode, tool, given === undefined ? {} : { file_path: given }, ctx);
  if (decision.allowed && given !== undefined && await symlinks.leadsOutside(given, projectRoot)) {
    return { ...decision, allowed: false, error: 'file', reason: `Path "${given}" leads outside the project root ${projectRoot} through a symbolic link` };
  }
  return decision;
}

function asProjectPath(path: string, root: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(resolve(root), path);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  return inside ? rel.split(sep).join('/') : path;
}
