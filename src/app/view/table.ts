// Draws the modes view's data: the table (a row per mode, a column per tool group, the edit pattern
// and its words in the cell) and the problems at file:line:column. Replaces what it drew; decides nothing.
import type { ViewData, ViewGroup, ViewMode, ViewProblem } from '../view-data.js';
import { el, hidden } from './dom.js';
import { nameParts } from './icons.js';

const SOURCE_WORDS: Readonly<Record<ViewMode['source'], string>> = { builtin: 'built-in', global: 'global', project: 'project' };

/** The leading columns; the group columns follow, one per name in the data. */
const LEAD = ['Mode', 'Slug', 'Source'] as const;

function modeCell(m: ViewMode): HTMLTableCellElement {
  const { icon, badge, label } = nameParts(m.name);
  return el('th', { scope: 'row', class: 'mode' },
    el('span', { class: badge ? 'icon badge' : 'icon', 'aria-hidden': 'true' }, icon),
    el('span', { class: 'name' }, label),
    m.description ? el('span', { class: 'about' }, m.description) : null);
}

function sourceCell(m: ViewMode): HTMLTableCellElement {
  const where = m.file === undefined ? null : el('span', { class: 'file' }, m.line === undefined ? m.file : `${m.file}:${m.line}`);
  return el('td', { class: 'source' }, el('span', { class: `tag ${m.source}` }, SOURCE_WORDS[m.source]), where);
}

function groupCell(group: string, g: ViewGroup | undefined): HTMLTableCellElement {
  if (!g?.enabled) return el('td', { class: 'group off' }, el('span', { 'aria-hidden': 'true' }, '–'), hidden(`no ${group}`));
  const cell = el('td', { class: 'group on' }, el('span', { class: 'yes', 'aria-hidden': 'true' }, '✓'));
  if (g.file_regex !== undefined) {
    cell.append(hidden(`${group} only files matching `), el('code', { class: 'pattern' }, g.file_regex));
    if (g.description) cell.append(el('span', { class: 'words' }, g.description));
  } else {
    cell.append(hidden(`${group} allowed`));
  }
  if (g.tools !== undefined) cell.append(el('span', { class: 'words' }, 'only ', ...g.tools.flatMap((t, i) => [i > 0 ? ', ' : '', el('code', {}, t)])));
  if (g.allowed_mcp_servers !== undefined) cell.append(el('span', { class: 'words' }, `servers: ${g.allowed_mcp_servers.join(', ') || 'none'}`));
  return cell;
}

/** Replaces the table's head and body with `data`'s; rows carry their slug for the keyboard and the try box. */
export function drawTable(table: HTMLTableElement, data: ViewData): void {
  const head = el('thead', {}, el('tr', {}, ...LEAD.map((h) => el('th', { scope: 'col' }, h)), ...data.groups.map((g) => el('th', { scope: 'col', class: 'group' }, g))));
  const body = el('tbody', {}, ...data.modes.map((m) => {
    const row = el('tr', { 'data-slug': m.slug }, modeCell(m), el('td', { class: 'slug' }, el('code', {}, m.slug)), sourceCell(m),
      ...data.groups.map((g) => groupCell(g, m.groups[g])));
    return row;
  }));
  table.replaceChildren(el('caption', {}, `${data.modes.length} mode${data.modes.length === 1 ? '' : 's'} of ${data.project}, with what each may do`), head, body);
  table.setAttribute('aria-rowcount', String(data.modes.length + 1));
}

const place = (p: ViewProblem): string => `${p.file}:${p.line}${p.column !== undefined ? `:${p.column}` : ''}`;

/** The problems list (hidden when there are none). */
export function drawProblems(section: HTMLElement, list: HTMLElement, problems: readonly ViewProblem[]): void {
  section.hidden = problems.length === 0;
  list.replaceChildren(...problems.map((p) => el('li', {},
    el('code', { class: 'where' }, place(p)),
    p.slug !== undefined ? el('span', { class: 'slug' }, ` ${p.slug}: `) : ' ',
    el('span', {}, p.reason))));
}
