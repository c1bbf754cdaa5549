// Puts the one settings-level PreToolUse hook (`hook claude-code --by-agent`) into
// .claude/settings.json or settings.local.json. Edits text in place; never drops another's handler.
import { JSONC, parseJson } from '../jsonc/read.js';
import { mergeNestedMember, type UpsertOutcome } from '../jsonc/edit.js';
import type { Plain } from '../yaml/write.js';

/** The settings files --settings and --settings-local write: the team's, and the one kept out of git. */
export const SETTINGS_FILES = { shared: '.claude/settings.json', local: '.claude/settings.local.json' } as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * True for a handler an export wrote: today's exec-form `--by-agent` command, an HTTP handler on
 * the endpoint without a mode, or an earlier version's per-agent command line (`… hook claude-code
 * --mode X --agent X`, often with that machine's node path). A hand-written `--mode` hook is not ours.
 */
export function exportedHandler(h: unknown): boolean {
  if (!isRecord(h)) return false;
  if (h.type === 'http' && typeof h.url === 'string') {
    try {
      const url = new URL(h.url);
      return url.pathname.endsWith('/hooks/claude-code') && !url.searchParams.has('mode');
    } catch { return false; }
  }
  const args = h.args;
  if (Array.isArray(args)) {
    const at = args.findIndex((a, i) => a === 'hook' && args[i + 1] === 'claude-code');
    return at !== -1 && args.slice(at + 2).includes('--by-agent');
  }
  return typeof h.command === 'string' && / hook claude-code /.test(h.command) && / --agent \S/.test(h.command);
}

/**
 * The matcher groups without our handlers: a group left empty by that goes, one holding someone
 * else's handlers too keeps them. Null when nothing of ours was there.
 */
function withoutOurs(groups: readonly unknown[]): unknown[] | null {
  let found = false;
  const out: unknown[] = [];
  for (const g of groups) {
    const hooks = isRecord(g) && Array.isArray(g.hooks) ? g.hooks : null;
    const kept = hooks?.filter((h) => !exportedHandler(h));
    if (hooks === null || kept!.length === hooks.length) { out.push(g); continue; }
    found = true;
    if (kept!.length > 0) out.push({ ...(g as Record<string, unknown>), hooks: kept });
  }
  return found ? out : null;
}

/**
 * The settings text with `hooks.PreToolUse` holding `entry` after every group that is not ours;
 * handlers an export wrote before (in any of its forms) are replaced, and other keys, entries and
 * comments elsewhere are kept byte for byte. Running it on its own output changes nothing.
 */
export function mergeHooks(text: string, entry: Plain): UpsertOutcome {
  const base = text.trim() === '' ? '{}\n' : text;
  const root = parseJson(base, JSONC).root.value;
  if (!isRecord(root)) return { ok: false, reason: 'the top level is not a JSON object' };
  const hooks = root.hooks;
  if (hooks !== undefined && !isRecord(hooks)) return { ok: false, reason: '"hooks" is not an object' };
  const current = hooks?.PreToolUse;
  if (current !== undefined && !Array.isArray(current)) return { ok: false, reason: '"hooks.PreToolUse" is not an array' };
  const others = withoutOurs(current ?? []) ?? current ?? [];
  const next = [...others, entry];
  // mergeNestedMember replaces a non-object member whole, which is what an array needs.
  return mergeNestedMember(base, JSONC, 'hooks', 'PreToolUse', next as unknown as Record<string, unknown>);
}
