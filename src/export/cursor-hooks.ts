// Cursor's .cursor/hooks.json entry that enforces one mode (`export --to cursor --enforce SLUG`),
// merged into the file's text in place. Never drops another hook or key; builds text only.
import { isDeepStrictEqual } from 'node:util';
import { JSONC, parseJson, type JsonNode } from '../jsonc/read.js';
import { mergeNestedMember, type UpsertOutcome } from '../jsonc/edit.js';
import { launcherLine, type ExportContext } from './source.js';

export const CURSOR_HOOKS_FILE = '.cursor/hooks.json';
/** The hooks.json format this entry is written for (Cursor's `"version": 1`). */
const FORMAT_VERSION = 1;

/** Cursor takes one command string; the launcher words are joined with POSIX quoting. */
export function cursorHookCommand(ctx: ExportContext, slug: string): string {
  return launcherLine(ctx, ['hook', 'cursor', '--mode', slug]);
}

/**
 * The entry: no matcher, so every tool call reaches the hook (which answers "no decision" for a
 * tool it does not know), and `failClosed`, so a hook that cannot run, crashes or times out blocks.
 */
export function cursorHookEntry(ctx: ExportContext, slug: string): { command: string; failClosed: true } {
  return { command: cursorHookCommand(ctx, slug), failClosed: true };
}

/** An entry an export wrote, for any mode: only one mode can be enforced, so a new one replaces it. */
export function exportedCursorEntry(entry: unknown): boolean {
  const command = typeof entry === 'object' && entry !== null ? (entry as { command?: unknown }).command : undefined;
  return typeof command === 'string' && /(?:^|\s)hook cursor --mode \S+$/.test(command);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The hooks.json text with `hooks.preToolUse` holding `entry` after every entry that is not ours;
 * other keys, hooks and comments are kept byte for byte. A missing `"version"` is added (1); another
 * version is refused, since the entry's shape is that of version 1.
 */
export function mergeCursorHooks(text: string, entry: Record<string, unknown>): UpsertOutcome {
  const blank = text.trim() === '' || /^\s*\{\s*\}\s*$/.test(text);
  if (blank) {
    return { ok: true, action: 'added', text: `${JSON.stringify({ version: FORMAT_VERSION, hooks: { preToolUse: [entry] } }, null, 2)}\n` };
  }
  const { root } = parseJson(text, JSONC);
  if (!isObject(root.value)) return { ok: false, reason: 'the top level is not a JSON object' };
  const version = root.value.version;
  if (version !== undefined && version !== FORMAT_VERSION) return { ok: false, reason: `"version" is ${JSON.stringify(version)}; this export writes version ${FORMAT_VERSION} entries` };
  const hooks = root.value.hooks;
  if (hooks !== undefined && !isObject(hooks)) return { ok: false, reason: '"hooks" is not an object' };
  const current = hooks?.preToolUse;
  if (current !== undefined && !Array.isArray(current)) return { ok: false, reason: '"hooks.preToolUse" is not an array' };
  const next = [...(current ?? []).filter((e) => !exportedCursorEntry(e)), entry];
  if (version !== undefined && isDeepStrictEqual(current, next)) return { ok: true, action: 'unchanged', text };
  const base = version === undefined ? withVersion(text, root) : text;
  // mergeNestedMember replaces a non-object member whole, which is what an array needs.
  return mergeNestedMember(base, JSONC, 'hooks', 'preToolUse', next as unknown as Record<string, unknown>);
}

/** `"version": 1` as the object's first member, indented like the member after it. */
function withVersion(text: string, root: JsonNode): string {
  const first = root.members?.[0];
  if (first === undefined) return `${text.slice(0, root.start)}{ "version": ${FORMAT_VERSION} }${text.slice(root.end)}`;
  const lineStart = text.lastIndexOf('\n', first.keyStart - 1) + 1;
  const lead = text.slice(lineStart, first.keyStart);
  const ownLine = lead.trim() === '';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const at = ownLine ? lineStart : first.keyStart;
  const inserted = ownLine ? `${lead}"version": ${FORMAT_VERSION},${eol}` : `"version": ${FORMAT_VERSION}, `;
  return text.slice(0, at) + inserted + text.slice(at);
}
