// The Cursor target: a rule file per mode (.cursor/rules/<slug>.mdc) carrying the instructions and,
// in words, the mode's limits. Cursor rules cannot enforce anything, and the file says so.
import { describeToolGroups } from '../modes/describe.js';
import { quote } from '../yaml/write.js';
import { withFrontmatter, type ExportMode, type TargetOutput } from './source.js';

function limits(m: ExportMode): string {
  const rows = describeToolGroups(m.mode).filter((r) => r.enabled);
  const lines = [
    '## Limits of this mode (described, not enforced)',
    '',
    'Cursor rules cannot restrict tools or files, so keep to these limits yourself:',
  ];
  if (rows.length === 0) lines.push('- No tool groups: read nothing, edit nothing, run nothing.');
  for (const r of rows) {
    const only = r.fileRegex !== undefined ? ` — only files whose path matches the regular expression \`${r.fileRegex}\`${r.description ? ` (${r.description})` : ''}` : '';
    lines.push(`- ${r.group}${only}`);
  }
  const off = describeToolGroups(m.mode).filter((r) => !r.enabled).map((r) => r.group);
  if (off.length > 0) lines.push(`- Not in this mode: ${off.join(', ')}.`);
  return lines.join('\n');
}

export function cursorRule(m: ExportMode): TargetOutput {
  const yaml = [`description: ${quote(m.description)}`, 'alwaysApply: false'];
  const lost = ['tool groups and the edit pattern: Cursor rules cannot enforce them; the rule describes them'];
  return { path: `.cursor/rules/${m.mode.slug}.mdc`, text: withFrontmatter(m, yaml, `${m.body}\n${limits(m)}\n`), lost };
}
