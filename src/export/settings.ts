// Adds the exported modes' PreToolUse hooks to .claude/settings.json, for Claude Code versions
// whose subagent frontmatter hooks do not fire. Edits text in place; never drops another entry.
import { JSONC, parseJson } from '../jsonc/read.js';
import { mergeNestedMember, type UpsertOutcome } from '../jsonc/edit.js';
import type { Plain } from '../yaml/write.js';

export const SETTINGS_FILE = '.claude/settings.json';

/** True for a hook entry this exporter wrote for one of `names` (so a new export replaces it). */
function ours(entry: unknown, names: ReadonlySet<string>): boolean {
  if (typeof entry !== 'object' || entry === null) return false;
  const hooks = (entry as { hooks?: unknown }).hooks;
  if (!Array.isArray(hooks)) return false;
  return hooks.some((h) => {
    const command = typeof h === 'object' && h !== null ? (h as { command?: unknown }).command : undefined;
    if (typeof command !== 'string' || !command.includes(' hook claude-code ')) return false;
    const agent = / --agent (\S+)/.exec(command)?.[1];
    return agent !== undefined && names.has(agent.replace(/^'|'$/g, ''));
  });
}

/**
 * The settings text with `hooks.PreToolUse` holding `entries` (one per agent) after every entry
 * that is not ours; other keys, entries and comments elsewhere are kept byte for byte.
 */
export function mergeHooks(text: string, entries: readonly Plain[], names: ReadonlySet<string>): UpsertOutcome {
  const base = text.trim() === '' ? '{}\n' : text;
  const root = parseJson(base, JSONC).root.value;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) return { ok: false, reason: 'the top level is not a JSON object' };
  const hooks = (root as Record<string, unknown>).hooks;
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))) return { ok: false, reason: '"hooks" is not an object' };
  const current = (hooks as Record<string, unknown> | undefined)?.PreToolUse;
  if (current !== undefined && !Array.isArray(current)) return { ok: false, reason: '"hooks.PreToolUse" is not an array' };
  const kept = (current ?? []).filter((e) => !ours(e, names));
  const next = [...kept, ...entries];
  // mergeNestedMember replaces a non-object member whole, which is what an array needs.
  return mergeNestedMember(base, JSONC, 'hooks', 'PreToolUse', next as unknown as Record<string, unknown>);
}
