// The Cursor target: a rule file per mode (.cursor/rules/<slug>.mdc) carrying the instructions and,
// in words, the mode's limits, saying whether .cursor/hooks.json enforces them. Builds text only.
import { describeToolGroups } from '../modes/describe.js';
import { quote } from '../yaml/write.js';
import { CURSOR_HOOKS_FILE } from './cursor-hooks.js';
import { withFrontmatter, type ExportMode, type TargetOutput } from './source.js';

/** The opening of the limits section: enforced by the hook, or only described. */
function preamble(slug: string, enforced: string | undefined): string[] {
  if (enforced === slug) {
    return [
      '## Limits of this mode (enforced by a hook)',
      '',
      `\`${CURSOR_HOOKS_FILE}\` runs \`roo-modes-server hook cursor --mode ${slug}\` before every tool call and refuses a call outside these limits; when the hook cannot run, the call is blocked.`,
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

function limits(m: ExportMode, enforced: string | undefined): string {
  const rows = describeToolGroups(m.mode).filter((r) => r.enabled);
  const lines = preamble(m.mode.slug, enforced);
  if (rows.length === 0) lines.push('- No tool groups: read nothing, edit nothing, run nothing.');
  for (const r of rows) {
    const only = r.fileRegex !== undefined ? ` — only files whose path matches the regular expression \`${r.fileRegex}\`${r.description ? ` (${r.description})` : ''}` : '';
    lines.push(`- ${r.group}${only}`);
  }
  const off = describeToolGroups(m.mode).filter((r) => !r.enabled).map((r) => r.group);
  if (off.length > 0) lines.push(`- Not in this mode: ${off.join(', ')}.`);
  return lines.join('\n');
}

/** `enforced`: the mode whose hook the export writes into .cursor/hooks.json, if any. */
export function cursorRule(m: ExportMode, enforced?: string): TargetOutput {
  const yaml = [`description: ${quote(m.description)}`, 'alwaysApply: false'];
  const lost = enforced === m.mode.slug
    ? ['Cursor names no mode in a hook\'s input: the hook holds every agent chat of the project to this mode']
    : ['tool groups and the edit pattern: Cursor rules cannot enforce them; the rule describes them'];
  return { path: `.cursor/rules/${m.mode.slug}.mdc`, text: withFrontmatter(m, yaml, `${m.body}\n${limits(m, enforced)}\n`), lost };
}
