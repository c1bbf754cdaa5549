// The one place where this folder's writers ask whether a path may be written: the same decision
// validate_tool_use makes (decideToolUse for write_to_file). It decides; it never writes.
import { compileMode, type CompiledMode, type PermissionContext, type PermissionDecision } from '../modes/permissions.js';
import { decideToolUse } from '../modes/decide-tool-use.js';

/**
 * A mode that may edit any file: used to apply only the path rules (inside the root, no control
 * characters, no link leading out) to files the server itself writes, such as imported rules.
 */
export const ANY_FILE_WRITER: CompiledMode = Object.freeze(compileMode({
  slug: 'server-writer', name: 'server writer', roleDefinition: 'Writes files for the server.', groups: ['edit'], source: 'builtin',
}));

/**
 * May `mode` write `path` (relative to ctx.projectRoot, or absolute)? Exactly as validate_tool_use
 * judges a write_to_file call: groups, then the path resolved as a write would, confined, matched.
 */
export function judgeWrite(mode: CompiledMode, path: string, ctx: PermissionContext): PermissionDecision {
  return decideToolUse(mode, 'write_to_file', { path }, ctx);
}
