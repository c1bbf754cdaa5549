// The Cursor target: a rule (.cursor/rules/<slug>.mdc) and a native subagent (.cursor/agents/) per
// mode, carrying the instructions and, in words, the limits, saying what Cursor holds. Builds text only.
import { describeToolGroups } from '../modes/describe.js';
import { quote } from '../yaml/write.js';
import { CURSOR_HOOKS_FILE, cursorHookCommand } from './cursor-hooks.js';
import { withFrontmatter, type ExportContext, type ExportMode, type TargetOutput } from './source.js';

/**
 * The opening of the limits section: enforced by the hook, or only described. The hook's command is
 * the one hooks.json holds (the check file run by node, or the --hook-command words), so a reader
 * can run it by hand.
 */
function preamble(slug: string, ctx: ExportContext): string[] {
  const enforced = ctx.enforce;
  if (enforced === slug) {
    return [
      '## Limits of this mode (enforced by a hook)',
      '',
      `\`${CURSOR_HOOKS_FILE}\` runs \`${cursorHookCommand(ctx, slug)}\` before every tool call and refuses a call outside these limits; when the hook cannot run, the call is blocked.`,
      'Cursor tells a hook no rule or mode, so these limits hold in every agent chat of this project, with or without this rule.',
      'Not covered: files a shell command writes (when the mode may run commands) and Tab completions.',
    ];
  }
  const lines = [
    '## Limits of this mode (described, not enforced)',
    '',
    'Cursor rules cannot restrict tools or files, so keep to these limits yourself:',
  ];
  if (enforced !== undefined) lines.splice(2, 0, `Note: \`${CURSOR_HOOKS_FILE}\` holds every agent chat of this project, this one included, to the limits of mode ${enforced}.`, '');
  return lines;
}

function limits(m: ExportMode, ctx: ExportContext): string {
  const rows = describeToolGroups(m.mode).filter((r) => r.enabled);
  const lines = preamble(m.mode.slug, ctx);
  if (rows.length === 0) lines.push('- No tool groups: read nothing, edit nothing, run nothing.');
  for (const r of rows) {
    const only = r.fileRegex !== undefined ? ` — only files whose path matches the regular expression \`${r.fileRegex}\`${r.description ? ` (${r.description})` : ''}` : '';
    lines.push(`- ${r.group}${only}`);
  }
  const off = describeToolGroups(m.mode).filter((r) => !r.enabled).map((r) => r.group);
  if (off.length > 0) lines.push(`- Not in this mode: ${off.join(', ')}.`);
  return lines.join('\n');
}

/**
 * The mode as a rule (.cursor/rules/<slug>.mdc) and as a subagent (.cursor/agents/<name>.md), each
 * with the instructions and the limits in words. `ctx.enforce`: the mode whose hook the export
 * writes into .cursor/hooks.json, if any.
 */
export function cursorRule(m: ExportMode, ctx: ExportContext): TargetOutput {
  const { mode } = m;
  const enforced = ctx.enforce;
  const body = `${m.body}\n${limits(m, ctx)}\n`;
  const rule = withFrontmatter(m, [`description: ${quote(m.description)}`, 'alwaysApply: false'], body);
  // readonly is the one write control a Cursor subagent has; it also stops commands that change state.
  const readonly = !mode.compiled.groups.has('edit');
  const agent = withFrontmatter(m, [`name: ${cursorAgentName(mode.slug)}`, `description: ${quote(m.description)}`, ...(readonly ? ['readonly: true'] : [])], body);
  const lost: string[] = [];
  const held: string[] = [];
  if (readonly) held.push('the subagent is readonly: Cursor lets it write no file');
  if (readonly && mode.compiled.groups.has('command')) lost.push('readonly restricts writes as a whole, so commands that change files may be refused too, which the mode\'s command group would allow');
  const pattern = mode.compiled.edit?.fileRegex;
  if (enforced !== undefined && enforced !== mode.slug) held.push(`${CURSOR_HOOKS_FILE} holds every agent chat, this subagent included, to mode ${enforced}`);
  if (enforced === mode.slug) {
    held.push(`${CURSOR_HOOKS_FILE} holds every agent chat of the project, this subagent included, to this mode's tool groups${pattern === undefined ? '' : ` and its edit pattern ${pattern}`} (Cursor names no mode to a hook)`);
  } else {
    if (pattern !== undefined) lost.push(`the edit pattern ${pattern}: a Cursor subagent has no path limits; only --enforce ${mode.slug} (a preToolUse hook, one mode for every chat) holds it`);
    const off = describeToolGroups(mode).filter((r) => !r.enabled && r.group !== 'edit').map((r) => r.group);
    if (off.length > 0) lost.push(`the groups it lacks (${off.join(', ')}): a Cursor subagent has no tool list; the rule and the subagent describe them`);
  }
  if (held.length === 0) held.push('nothing: the rule and the subagent describe the limits');
  return { path: `.cursor/rules/${mode.slug}.mdc`, text: rule, also: [{ path: `.cursor/agents/${cursorAgentName(mode.slug)}.md`, text: agent }], lost, enforced: held };
}

/** A Cursor subagent's name: the slug lower-cased, as Claude Code's agents are named. */
export const cursorAgentName = (slug: string): string => slug.toLowerCase();
