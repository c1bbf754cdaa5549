// Roo's export format, read back: every mode validated before anything is written, each upserted
// into the scope's mode file, its rules-<slug>/ folder replaced by the confined, bounded rules files.
import { join, relative } from 'node:path';
import { readModeFileText } from '../modes/mode-file.js';
import { validateModeEntry } from '../modes/validate-mode.js';
import { modeEntries, modeToPlain, upsertModeText, type ModeFileFormat } from './mode-file-edit.js';
import { allEntries, backUp, readModeFile, type ScopePaths } from './mode-writes.js';
import { withModeFileLock } from './mode-file-lock.js';
import { commitWhole } from './write-journal.js';
import { RULES_LIMITS } from './roo-export.js';
import { ANY_FILE_WRITER, judgeWrite } from './write-gate.js';
import type { ModeConfig } from '../modes/types.js';
import { FileRestrictionError, ValidationError } from '../rpc/errors.js';
import { YamlError } from '../yaml/read.js';
import { isRecord } from '../rpc/jsonrpc.js';

/** Most modes one import may carry. */
export const MAX_IMPORT_MODES = 100;

export interface ImportedMode { config: ModeConfig; rules: { path: string; content: string }[]; skipped: { relativePath: string; reason: string }[] }

const fail = (message: string, detail: Record<string, unknown> = {}): never => {
  throw new ValidationError(`Import refused: ${message}`, { message, ...detail });
};

/**
 * A rules file's path made safe, or why it cannot be: `\` counts as a separator, a leading
 * `rules-<x>/` (older exports) is dropped, and absolute paths or `..` anywhere are refused.
 */
export function confineRulePath(raw: string): { path: string } | { reason: string } {
  if (raw.length === 0 || raw.length > 1024) return { reason: 'empty or longer than 1024 characters' };
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { reason: 'contains control characters' };
  const slashed = raw.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) return { reason: 'an absolute path' };
  const parts = slashed.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return { reason: 'leaves the rules folder (..)' };
  if (parts.length > 1 && /^rules-[^/]+$/.test(parts[0]!)) parts.shift();
  if (parts.length === 0) return { reason: 'names no file' };
  return { path: parts.join('/') };
}

/** The modes of an export file, a single mode, or a marketplace item (`content` holding one mode's YAML). */
function entriesOf(value: unknown): unknown[] {
  if (isRecord(value) && Array.isArray(value.customModes)) return value.customModes;
  if (isRecord(value) && typeof value.content === 'string' && value.slug === undefined) {
    let inner: unknown;
    try { inner = readModeFileText(value.content, { jsonFallback: true }).value; } catch (err) {
      return fail(`the marketplace item's content is not YAML: ${err instanceof Error ? err.message : String(err)}`);
    }
    return isRecord(inner) && Array.isArray(inner.customModes) ? inner.customModes : [inner];
  }
  if (isRecord(value) && value.slug !== undefined) return [value];
  return fail('expected {customModes: [...]}, one mode, or a marketplace item with content');
}

/** Parses and validates an import; throws ValidationError (-32004) on the first problem, before any write. */
export function parseImport(text: string): { modes: ImportedMode[] } {
  let value: unknown;
  try {
    value = readModeFileText(text, { jsonFallback: true }).value;
  } catch (err) {
    if (err instanceof YamlError) return fail(`cannot parse the file: ${err.message}`, { line: err.line, column: err.column });
    throw err;
  }
  const entries = entriesOf(value);
  if (entries.length === 0) fail('the file holds no modes');
  if (entries.length > MAX_IMPORT_MODES) fail(`the file holds ${entries.length} modes; at most ${MAX_IMPORT_MODES} are imported at once`);
  const seen = new Set<string>();
  let files = 0;
  let bytes = 0;
  const modes = entries.map((entry, i): ImportedMode => {
    const checked = validateModeEntry(entry);
    if (!checked.ok) return fail(`customModes[${i}]${checked.slug ? ` ("${checked.slug}")` : ''} is invalid: ${checked.problems.join('; ')}`, { index: i, problems: checked.problems });
    const slug = checked.mode.slug;
    if (seen.has(slug)) fail(`the mode "${slug}" appears twice`, { index: i });
    seen.add(slug);
    const raw = (entry as Record<string, unknown>).rulesFiles;
    if (raw !== undefined && !Array.isArray(raw)) fail(`customModes[${i}].rulesFiles must be a list`, { index: i });
    const list = (raw ?? []) as unknown[];
    files += list.length;
    if (files > RULES_LIMITS.maxFiles) fail(`more than ${RULES_LIMITS.maxFiles} rules files`, { limit: RULES_LIMITS.maxFiles });
    const rules: ImportedMode['rules'] = [];
    const skipped: ImportedMode['skipped'] = [];
    list.forEach((r, j) => {
      const at = `customModes[${i}].rulesFiles[${j}]`;
      if (!isRecord(r) || typeof r.relativePath !== 'string') fail(`${at} must be {relativePath, content}`, { index: i });
      const rec = r as Record<string, unknown>;
      if (rec.content !== undefined && typeof rec.content !== 'string') fail(`${at}.content must be a string`, { index: i });
      const content = (rec.content as string | undefined) ?? '';
      const size = Buffer.byteLength(content);
      if (size > RULES_LIMITS.maxFileBytes) fail(`${at} holds ${size} bytes; at most ${RULES_LIMITS.maxFileBytes} per file`, { index: i });
      bytes += size;
      if (bytes > RULES_LIMITS.maxTotalBytes) fail(`the rules files hold more than ${RULES_LIMITS.maxTotalBytes} bytes in all`, { limit: RULES_LIMITS.maxTotalBytes });
      const safe = confineRulePath(rec.relativePath as string);
      if ('reason' in safe) { skipped.push({ relativePath: (rec.relativePath as string).slice(0, 200), reason: safe.reason }); return; }
      if (content.trim() === '') { skipped.push({ relativePath: safe.path, reason: 'empty' }); return; }
      if (rules.some((x) => x.path === safe.path)) { skipped.push({ relativePath: safe.path, reason: 'given twice; the first is kept' }); return; }
      rules.push({ path: safe.path, content });
    });
    return { config: checked.mode, rules, skipped };
  });
  return { modes };
}

export interface ImportReport {
  scope: string;
  mode_file: string;
  format: ModeFileFormat;
  dry_run: boolean;
  backup: string | null;
  modes: {
    slug: string; action: 'created' | 'replaced'; rules_dir: string;
    removed: string[]; written: string[]; skipped: { relative_path: string; reason: string }[];
  }[];
}

/** A mode file that does not parse is never overwritten: the user must fix it first. */
export function mustParse(text: string, file: string): void {
  try {
    modeEntries(text);
  } catch (err) {
    const where = err instanceof YamlError ? { line: err.line, column: err.column } : {};
    throw new ValidationError(`${file} does not parse; fix it before changing its modes`, { message: err instanceof Error ? err.message : String(err), file, ...where });
  }
}

/** Plans and (unless dryRun) carries out an import into one scope; nothing is written if any check fails. */
export async function importModes(
  parsed: { modes: ImportedMode[] }, paths: ScopePaths, dryRun: boolean,
  gate: (plan: { modeFile: string; rulesDir: string }) => Promise<void> = async () => undefined,
  signal?: AbortSignal,
): Promise<ImportReport> {
  const ctx = { projectRoot: paths.confineRoot, confineToProjectRoot: true };
  const inRoot = (p: string): string => relative(paths.confineRoot, p);
  const targets = parsed.modes.map((m) => ({ m, dir: join(paths.rooDir, `rules-${m.config.slug}`) }));
  // Every target judged before anything is touched: one refused path refuses the whole import.
  for (const { dir } of targets) await gate({ modeFile: paths.modeFile, rulesDir: dir });
  for (const { m, dir } of targets) {
    for (const p of [dir, ...m.rules.map((r) => join(dir, r.path))]) {
      const verdict = judgeWrite(ANY_FILE_WRITER, inRoot(p), ctx);
      if (!verdict.allowed) throw new FileRestrictionError(`Import refused: ${verdict.reason}`, { message: verdict.reason, path: p });
    }
  }
  const run = async (): Promise<ImportReport> => {
    const before = await readModeFile(paths.modeFile);
    if (before !== null) mustParse(before, paths.modeFile);
    let text = before;
    let format: ModeFileFormat = 'yaml';
    const rows: ImportReport['modes'] = [];
    for (const { m, dir } of targets) {
      const edit = upsertModeText(text, modeToPlain(m.config));
      text = edit.text;
      format = edit.format;
      rows.push({
        slug: m.config.slug, action: edit.action === 'replaced' ? 'replaced' : 'created', rules_dir: dir, removed: await allEntries(dir),
        written: m.rules.map((r) => r.path), skipped: m.skipped.map((s) => ({ relative_path: s.relativePath, reason: s.reason })),
      });
    }
    const report: ImportReport = { scope: paths.scope, mode_file: paths.modeFile, format, dry_run: dryRun, backup: null, modes: rows };
    if (dryRun) return report;
    report.backup = await backUp(paths.backupRoot, 'import', [paths.modeFile, ...targets.map((t) => t.dir)], paths.backupsKeep);
    // All or nothing: the rules folders and the mode file are staged, then swapped in (write-journal.ts).
    await commitWhole(paths, text!, targets.map(({ m }) => ({ slug: m.config.slug, files: m.rules })));
    return report;
  };
  return dryRun ? run() : withModeFileLock(paths.modeFile, run, { rooDir: paths.rooDir, leases: paths.leases, signal });
}
