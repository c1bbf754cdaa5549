// The one place where this folder's writers ask whether a path may be written: the same decision
// validate_tool_use makes (checkToolUse, then the symlink guard). It decides; it never writes.
import { checkToolUse, compileMode, type CompiledMode, type PermissionContext, type PermissionDecision } from './permissions.js';
import type { SymlinkGuard } from './confine.js';

/**
 * A mode that may edit any file: used to apply only the path rules (inside the root, no control
 * characters, no link leading out) to files the server itself writes, such as imported rules.
 */
export const ANY_FILE_WRITER: CompiledMode = Object.freeze(compileMode({
  slug: 'server-writer', name: 'server writer', roleDefinition: 'Writes files for the server.', groups: ['edit'], source: 'builtin',
}));

/**
 * May `mode` write `path` (relative to ctx.projectRoot, or absolute)? As validate_tool_use judges a
 * write_to_file call: groups, file pattern, confinement by text, then where links really lead.
 * When the path decision is rewritten as one shared function, this is the call to swap.
 */
export async function judgeWrite(mode: CompiledMode, path: string, ctx: PermissionContext, guard: SymlinkGuard): Promise<PermissionDecision> {
  const decision = checkToolUse(mode, 'write_to_file', { path }, ctx);
  if (!decision.allowed || !ctx.confineToProjectRoot || ctx.projectRoot === null) return decision;
  if (await guard.leadsOutside(path, ctx.projectRoot)) {
    return { ...decision, allowed: false, error: 'file', reason: `Path "${path}" leads outside ${ctx.projectRoot} through a symbolic link` };
  }
  return decision;
}
