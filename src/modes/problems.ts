// How problems in mode files are told: one line each (file:line:column: reason), the log at start
// and on reload, where a key is written, why a slug is missing. It never reads files or loads modes.
import type { Logger } from '../log.js';
import type { ModeIssue } from './types.js';
import type { KeyLocator } from './validate-mode.js';
import type { Catalogue } from './catalogue.js';
import { ModeNotFoundError } from '../rpc/errors.js';

/** A problem as one line: file:line:column: message (the column when known). */
export function formatIssue(issue: ModeIssue): string {
  const col = issue.column !== undefined ? `:${issue.column}` : '';
  return `${issue.file}:${issue.line ?? 1}${col}: ${issue.message}`;
}

/**
 * Logs what is wrong in the mode files, one line each as file:line:column: reason: problems and
 * warnings on stderr, notices at debug. With `since`, only the kinds whose findings changed.
 */
export function logModeProblems(cat: Catalogue, log: Logger, since?: Catalogue): void {
  const changed = (kind: 'issues' | 'warnings' | 'notices'): boolean => since === undefined || JSON.stringify(cat[kind]) !== JSON.stringify(since[kind]);
  if (changed('issues')) for (const issue of cat.issues) log.warn(formatIssue(issue));
  if (changed('warnings')) for (const w of cat.warnings) log.warn(`${formatIssue(w)} (warning)`);
  if (changed('notices')) for (const note of cat.notices) log.debug(formatIssue(note));
}

/** The error for a slug no mode has, with the mode-file problem that explains it when there is one. */
export function modeNotFound(cat: Catalogue, slug: string): ModeNotFoundError {
  const problem = cat.problemFor(slug);
  return new ModeNotFoundError(slug, cat.slugs(), problem === undefined ? undefined : formatIssue(problem));
}

/** The slugs a mode file's text seems to define (`slug: x`, `"slug": "x"`), read without parsing it. */
export function slugsMentioned(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s{,\-])["']?slug["']?\s*:\s*["']?([a-zA-Z0-9-]+)/g)) {
    if (found.size >= 1000) break;
    found.add(m[1]!);
  }
  return [...found];
}

/** JSON when the text opens with `{` (Roo's older .roomodes and export files), else YAML. */
export function formatOfText(text: string): 'yaml' | 'json' {
  return text.replace(/^\ufeff/, '').trimStart().startsWith('{') ? 'json' : 'yaml';
}

/**
 * Finds where a key of a mode entry is written: the first `key:` (bare or quoted) at or after the
 * entry's start and before the next entry's. The reader keeps positions of collections only, and
 * a report about one key must point at that key; the lines are split only when one is asked for.
 */
export function keyLocator(text: string): KeyLocator {
  let lines: string[] | undefined;
  return (key, from, until) => {
    if (from.line === undefined) return undefined;
    lines ??= text.split(/\r?\n/);
    const spelled = new RegExp(`(^|[\\s{,\\-])(["']?)${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\2\\s*:`, 'g');
    const last = Math.min(lines.length, until.line ?? lines.length);
    for (let n = from.line; n <= last; n++) {
      spelled.lastIndex = n === from.line ? Math.max(0, (from.column ?? 1) - 2) : 0;
      const m = spelled.exec(lines[n - 1]!);
      if (m) return { line: n, column: m.index + m[1]!.length + 1 };
    }
    return undefined;
  };
}
