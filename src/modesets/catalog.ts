// Looks sets up by name and describes them for the tools: their analysis, which roles come from
// the template (specialist) and which were added (custom), and one list row per set. Reads only.
import type { ModesetPaths } from './paths.js';
import { analyseSet, type SetAnalysis, type SetIssue } from './sets.js';
import { listSets, notFound, readSmallFile } from './set-files.js';
import { BUILTIN_TEMPLATE, builtinSlugs, readTemplate, templateNames } from './templates.js';

export interface LoadedSet { name: string; path: string; text: string; mtime: Date; analysis: SetAnalysis }

/** Reads and analyses a set in roles/; an unknown name is -32004 listing the sets and templates. */
export async function loadSet(paths: ModesetPaths, name: string): Promise<LoadedSet> {
  const at = await paths.inside(paths.roles, name, 'mode_file');
  if (!at.exists) {
    const templates = await templateNames(paths);
    throw notFound('mode_file', name, 'mode set', await listSets(paths), [
      `Templates that orchestrator_mode_select can copy (auto_copy_if_missing): ${templates.join(', ')}`,
      'Create one with orchestrator_mode_create',
    ]);
  }
  const { text, mtime } = await readSmallFile(at.path, name);
  return { name, path: at.path, text, mtime, analysis: analyseSet(text, name) };
}

/** The slugs a set's template defines: its `template` when readable, else the built-in set's. */
export async function templateSlugs(paths: ModesetPaths, template: string | undefined): Promise<string[]> {
  if (template === undefined || template === BUILTIN_TEMPLATE) return builtinSlugs();
  try {
    const t = await readTemplate(paths, template);
    if (t) return analyseSet(t.text, t.name).slugs;
  } catch {
    // An unsafe or unreadable template name recorded in a set falls back to the built-in slugs.
  }
  return builtinSlugs();
}

export interface RoleSplit { specialist_roles: string[]; custom_roles: string[] }

export async function splitRoles(paths: ModesetPaths, a: SetAnalysis): Promise<RoleSplit> {
  const fromTemplate = new Set(await templateSlugs(paths, a.template));
  const slugs = a.modes.map((m) => m.slug);
  return { specialist_roles: slugs.filter((s) => fromTemplate.has(s)), custom_roles: slugs.filter((s) => !fromTemplate.has(s)) };
}

/** Issues in the response shape: message plus line/column/slug when known. */
export const issuesOut = (issues: readonly SetIssue[]): Record<string, unknown>[] => issues.map((i) => ({ ...i }));

/** The one-line cause shown in a list row for an invalid set. */
export function firstError(a: SetAnalysis): string | undefined {
  const e = a.errors[0];
  if (!e) return undefined;
  return `${e.line !== undefined ? `line ${e.line}: ` : ''}${e.message}${a.errors.length > 1 ? ` (+${a.errors.length - 1} more)` : ''}`;
}

export interface ListRow extends Record<string, unknown> {
  filename: string;
  status: 'valid' | 'invalid' | 'unreadable';
  is_current: boolean;
}

/** A list row for a set (or template when `current` is null). */
export async function describeRow(paths: ModesetPaths, name: string, load: () => Promise<{ text: string; mtime?: Date }>, current: string | null, details: boolean): Promise<ListRow> {
  let loaded: { text: string; mtime?: Date };
  try {
    loaded = await load();
  } catch (err) {
    return { filename: name, status: 'unreadable', specialist_count: 0, is_current: name === current, error: (err as Error).message };
  }
  const a = analyseSet(loaded.text, name);
  const split = await splitRoles(paths, a);
  const row: ListRow = {
    filename: name,
    status: a.isValid ? 'valid' : 'invalid',
    format: a.format,
    specialist_count: a.modes.length,
    is_current: name === current,
  };
  if (loaded.mtime) row.last_modified = loaded.mtime.toISOString();
  if (a.description !== undefined) row.description = a.description;
  const err = firstError(a);
  if (err !== undefined) row.error = err;
  if (details) {
    row.specialist_roles = split.specialist_roles;
    row.custom_roles = split.custom_roles;
    row.settings = a.settings;
    row.validation_details = { ...a.flags };
    row.error_count = a.errors.length;
    row.warning_count = a.warnings.length;
    if (a.requiredRoles.length) row.required_roles = a.requiredRoles;
  }
  return row;
}
