// The OpenCode and Kilo Code 7 target: an agent per mode (.opencode/agents/, .kilo/agents/) whose
// permission rules are written for last-match-wins and keep the edit pattern exactly, or refuse.
import type { GroupName } from '../modes/types.js';
import { toYaml, type Plain } from '../yaml/write.js';
import { regexToGlobs } from './globs.js';
import { toolsByGroups, withFrontmatter, type ExportContext, type ExportMode, type TargetOutput } from './source.js';

/** OpenCode's permission keys for each Roo group (`edit` covers write, patch and multiedit too). */
export const OPENCODE_PERMISSIONS: Readonly<Record<GroupName, readonly string[]>> = {
  read: ['read', 'glob', 'grep', 'list', 'lsp'],
  edit: ['edit'],
  browser: ['webfetch', 'websearch', 'codesearch'],
  // Zoo Code's web group (fetch_web_content) is the same reach as the browser's here.
  web: ['webfetch', 'websearch', 'codesearch'],
  command: ['bash'],
  mcp: [],
  modes: [],
};
/** Available in every Roo mode. */
const ALWAYS = ['task', 'todowrite', 'todoread', 'question', 'skill'];
/** Keys OpenCode/Kilo accept only as one action, never as a pattern map. */
const SCALAR_ONLY = new Set(['webfetch', 'websearch', 'codesearch', 'todowrite', 'todoread', 'question']);

// `*` alone means "one path segment" in newer OpenCode and "anything" in older releases, while
// `**` means anything in both: a refusal lists `**` and then `*`, so it covers every path in
// both readings and still ends on the `"*": deny` that makes OpenCode hide the tool.
const DENY_ALL: Plain = { '**': 'deny', '*': 'deny' };
const ALLOW_ALL: Plain = { '*': 'allow', '**': 'allow' };

export function openCodeAgent(folder: '.opencode' | '.kilo') {
  return (m: ExportMode, ctx: ExportContext): TargetOutput => {
    const { mode } = m;
    const lost: string[] = [];
    const groups = mode.compiled.groups;
    const permission: Record<string, Plain> = {};
    // Without the mcp group, a first catch-all refuses every tool not named below (MCP tools
    // included); later keys win over it, since OpenCode takes the last matching rule.
    if (!groups.has('mcp')) permission['*'] = 'deny';
    else lost.push('MCP tools: OpenCode names them <server>_<tool>; left to its defaults');
    const allowed = new Set(toolsByGroups(OPENCODE_PERMISSIONS, groups, true));
    for (const key of new Set(Object.values(OPENCODE_PERMISSIONS).flat())) {
      const on = allowed.has(key);
      permission[key] = SCALAR_ONLY.has(key) ? (on ? 'allow' : 'deny') : on ? ALLOW_ALL : DENY_ALL;
    }
    const edit = mode.compiled.edit;
    if (groups.has('edit') && edit) {
      const t = edit.regex === null ? { ok: false as const, reason: `the pattern ${edit.fileRegex} is unusable (Roo lets it match nothing)` } : regexToGlobs(edit.fileRegex);
      if (t.ok) {
        const rules: Record<string, Plain> = { '*': 'deny', '**': 'deny' };
        for (const g of t.globs) rules[g] = 'allow';
        permission.edit = rules;
      } else if (ctx.lossy) {
        permission.edit = { '*': 'ask', '**': 'ask' };
        lost.push(`edit pattern written as "ask" (--lossy): ${t.reason}`);
      } else {
        return { refused: `mode ${mode.slug}: ${t.reason}; its edit rule cannot be carried over exactly (pass --lossy to write "ask" instead)`, lost };
      }
    }
    // Roo confines every tool to the project; OpenCode asks about outside paths unless told.
    permission.external_directory = DENY_ALL;
    for (const key of ALWAYS) permission[key] = SCALAR_ONLY.has(key) ? 'allow' : ALLOW_ALL;
    // OpenCode's own guard against an agent repeating itself: keep its default (ask the user).
    permission.doom_loop = 'ask';
    if (groups.has('modes')) lost.push('modes group: OpenCode switches agents itself (Tab); nothing to carry');
    if (edit) lost.push('on Windows OpenCode compares paths without case; Roo patterns are case-sensitive');
    const front: Record<string, Plain> = { description: m.description, mode: 'all', permission };
    const yaml = toYaml(front).trimEnd().split('\n');
    return { path: `${folder}/agents/${mode.slug}.md`, text: withFrontmatter(m, yaml, m.body), lost };
  };
}
