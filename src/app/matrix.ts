// The modes view's data from a catalogue: each mode's groups with their patterns, the problems at
// their file:line:column, files named as a reader of that project would. Reads; decides nothing.
import { basename } from 'node:path';
import type { Catalogue } from '../modes/catalogue.js';
import { TOOL_GROUP_NAMES } from '../modes/types.js';
import { describeToolGroups } from '../modes/describe.js';
import { displayPath } from '../export/source.js';
import { toolGroupsObject } from '../mcp/reports.js';
import type { ViewData, ViewMode } from './view-data.js';

/** The columns every view has: Roo's six groups (Zoo's web joins them only when some mode has it). */
const ROO_GROUPS = TOOL_GROUP_NAMES.slice(0, 6);

export interface MatrixPlace { projectRoot: string; homeDir: string }

/**
 * A file as the view names it: inside the project or home, relative to it; elsewhere only its name,
 * so that no page (the static one is a file people pass around) holds a path of this machine.
 */
export function viewPath(file: string, place: MatrixPlace): string {
  const shown = displayPath(file, place);
  return /^(?:\/|[a-zA-Z]:)/.test(shown) ? `…/${basename(file)}` : shown;
}

export function buildViewData(cat: Catalogue, place: MatrixPlace): ViewData {
  const modes = cat.modes.map((m): ViewMode => {
    const groups = describeToolGroups(m);
    const row: ViewMode = { slug: m.slug, name: m.name, source: m.source, groups: toolGroupsObject(groups) };
    if (m.file !== undefined) row.file = viewPath(m.file, place);
    if (m.line !== undefined) row.line = m.line;
    const about = m.description ?? m.whenToUse;
    if (about !== undefined) row.description = about;
    return row;
  });
  const extra = TOOL_GROUP_NAMES.slice(6).filter((g) => modes.some((m) => m.groups[g]?.enabled === true));
  const data: ViewData = {
    project: basename(place.projectRoot) || place.projectRoot,
    groups: [...ROO_GROUPS, ...extra],
    modes,
    problems: cat.issues.map((i) => ({
      file: viewPath(i.file, place), line: i.line ?? 1, ...(i.column !== undefined ? { column: i.column } : {}),
      ...(i.slug !== undefined ? { slug: i.slug } : {}), reason: i.message,
    })),
  };
  if (cat.globalFile !== null) data.global_modes_file = viewPath(cat.globalFile, place);
  return data;
}

/** The matrix in words, for the tool result's text (what a host without a view, or the model, reads). */
export function matrixText(data: ViewData): string {
  const lines = [`${data.modes.length} mode${data.modes.length === 1 ? '' : 's'} in ${data.project}:`];
  for (const m of data.modes) {
    const groups = data.groups.filter((g) => m.groups[g]?.enabled).map((g) => {
      const regex = m.groups[g]?.file_regex;
      return regex === undefined ? g : `${g} (${regex})`;
    });
    lines.push(`- ${m.name} (${m.slug}), ${m.source}${m.file ? ` ${m.file}` : ''}: ${groups.join(', ') || 'no tool groups'}`);
  }
  if (data.problems.length > 0) {
    lines.push(`${data.problems.length} problem${data.problems.length === 1 ? '' : 's'}:`);
    for (const p of data.problems) lines.push(`- ${p.file}:${p.line}${p.column !== undefined ? `:${p.column}` : ''}: ${p.reason}`);
  }
  return lines.join('\n');
}
