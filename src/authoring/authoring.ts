// Creating, changing and deleting custom modes in their files: validated by the loader's rules
// before anything is written, under the file's lock, with a backup first, the file's format kept.
// Whether a caller may write at all is decided before these run (the gate), never in here.
import { relative } from 'node:path';
import type { Catalogue } from '../modes/catalogue.js';
import { modeNotFound } from '../modes/problems.js';
import type { ModeConfig } from '../modes/types.js';
import { validateModeEntry } from '../modes/validate-mode.js';
import { modeEntries, modeToPlain, removeModeText, upsertModeText, type ModeFileEdit } from './mode-file-edit.js';
import { backUp, readModeFile, removeFolder, scopePaths, writeModeFile, type Scope, type ScopeConfig, type ScopePaths } from './mode-writes.js';
import { withModeFileLock } from './mode-file-lock.js';
import { stillRecorded } from './turn-fence.js';
import { mustParse } from './import.js';
import { ValidationError } from '../rpc/errors.js';
import { isRecord } from '../rpc/jsonrpc.js';
import { toPlain, type Plain } from '../yaml/write.js';
import { join } from 'node:path';
import { ANY_FILE_WRITER, judgeWrite } from './write-gate.js';
import { FileRestrictionError } from '../rpc/errors.js';

/** A change the caller is about to make, shown to the gate before anything is written. */
export interface PlannedWrite { modeFile: string; rulesDir?: string }

export interface AuthoringContext {
  catalogue: Catalogue;
  scopes: ScopeConfig;
  /** Throws (-32005/-32006) when the calling session may not make the write; a no-op without a session. */
  gate(plan: PlannedWrite): Promise<void>;
  /** Ends a wait for the mode file's lock at once (the request was cancelled or the server stops). */
  signal?: AbortSignal;
}

export interface AuthoringResult {
  slug: string;
  action: 'created' | 'updated' | 'deleted';
  scope: Scope;
  mode_file: string;
  format: 'yaml' | 'json';
  preserved_format: boolean;
  backup: string;
  removed_rules_dir: string;
}

/** The fields a caller may set, in Roo's camelCase; undefined = leave as it is. */
export type ModeFields = Partial<Omit<ModeConfig, 'declaredSource'>>;

const refuse = (message: string, detail: Record<string, unknown> = {}): never => {
  throw new ValidationError(message, { message, ...detail });
};

function checked(entry: Record<string, unknown>): ModeConfig {
  const r = validateModeEntry(entry);
  if (!r.ok) return refuse(`The mode is invalid: ${r.problems.join('; ')}`, { problems: r.problems });
  return r.mode;
}

/** Where an existing custom mode is written: the scope asked for, else the file it was loaded from. */
async function locate(ctx: AuthoringContext, slug: string, scope: Scope | undefined, verb: string): Promise<{ paths: ScopePaths; file: string }> {
  const mode = ctx.catalogue.get(slug);
  if (scope !== undefined) {
    const paths = await scopePaths(scope, ctx.scopes);
    return { paths, file: paths.modeFile };
  }
  if (!mode) throw modeNotFound(ctx.catalogue, slug);
  if (mode.source === 'builtin' || mode.file === undefined) {
    return refuse(`"${slug}" is a built-in mode, which cannot be ${verb}; to change it, create a mode of the same slug in a scope`, { slug });
  }
  const paths = await scopePaths(mode.source, ctx.scopes);
  return { paths, file: mode.file };
}

async function write(ctx: AuthoringContext, file: string, paths: ScopePaths, label: string, extra: string[], change: (text: string | null) => ModeFileEdit | null, after?: () => Promise<void>): Promise<{ edit: ModeFileEdit; backup: string | null }> {
  return withModeFileLock(file, async () => {
    const text = await readModeFile(file);
    if (text !== null) mustParse(text, file);
    const edit = change(text);
    if (edit === null) return refuse(`the mode is not defined in ${file}`, { file });
    const backup = await backUp(paths.backupRoot, label, [file, ...extra], paths.backupsKeep);
    await writeModeFile(file, edit.text);
    await after?.();
    return { edit, backup };
  }, { rooDir: paths.rooDir, leases: paths.leases, signal: ctx.signal });
}

const result = (slug: string, action: AuthoringResult['action'], scope: Scope, file: string, w: { edit: ModeFileEdit; backup: string | null }, rulesDir = ''): AuthoringResult => ({
  slug, action, scope, mode_file: file, format: w.edit.format, preserved_format: w.edit.preserved, backup: w.backup ?? '', removed_rules_dir: rulesDir,
});

export async function createMode(ctx: AuthoringContext, fields: ModeFields & { slug: string }, scope: Scope): Promise<AuthoringResult> {
  const mode = checked(fields as Record<string, unknown>);
  const existing = ctx.catalogue.get(mode.slug);
  if (existing && existing.source === scope) {
    refuse(`A ${scope} mode "${mode.slug}" already exists (${existing.file ?? ''}); use update_mode to change it`, { slug: mode.slug, file: existing.file });
  }
  const paths = await scopePaths(scope, ctx.scopes);
  await ctx.gate({ modeFile: paths.modeFile });
  const w = await write(ctx, paths.modeFile, paths, `create-${mode.slug}`, [], (text) => {
    if (text !== null && modeEntries(text).some((e) => isRecord(e) && e.slug === mode.slug)) {
      refuse(`"${mode.slug}" is already defined in ${paths.modeFile}; use update_mode to change it`, { slug: mode.slug });
    }
    return upsertModeText(text, modeToPlain(mode));
  });
  return result(mode.slug, 'created', scope, paths.modeFile, w);
}

export async function updateMode(ctx: AuthoringContext, slug: string, fields: ModeFields, scope: Scope | undefined): Promise<AuthoringResult> {
  const { paths, file } = await locate(ctx, slug, scope, 'updated');
  await ctx.gate({ modeFile: file });
  const w = await write(ctx, file, paths, `update-${slug}`, [], (text) => {
    const entry = text === null ? undefined : modeEntries(text).find((e) => isRecord(e) && e.slug === slug);
    if (!isRecord(entry)) return refuse(`"${slug}" is not defined in ${file}; create_mode makes a new mode`, { slug, file });
    // The entry keeps the keys it had (even ones no dialect knows); the given fields replace theirs.
    const merged: Record<string, unknown> = { ...entry };
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) merged[key] = value;
    checked(merged);
    return upsertModeText(text, toPlain(merged) as { [key: string]: Plain });
  });
  return result(slug, 'updated', paths.scope, file, w);
}

export async function deleteMode(ctx: AuthoringContext, slug: string, scope: Scope | undefined, removeRules: boolean): Promise<AuthoringResult> {
  const { paths, file } = await locate(ctx, slug, scope, 'deleted');
  const rulesDir = join(paths.rooDir, `rules-${slug}`);
  if (removeRules) {
    // Whoever asks, a folder reached through a link out of the scope's root is never deleted.
    const verdict = judgeWrite(ANY_FILE_WRITER, shownPath(rulesDir, paths.confineRoot), { projectRoot: paths.confineRoot, confineToProjectRoot: true });
    if (!verdict.allowed) throw new FileRestrictionError(`Refused to remove ${rulesDir}: ${verdict.reason}`, { message: verdict.reason, path: rulesDir });
  }
  await ctx.gate(removeRules ? { modeFile: file, rulesDir } : { modeFile: file });
  const removed = { rules: false };
  // With a store, the folder goes only while the deletion is still the file's last write (see stillRecorded).
  const w = await write(ctx, file, paths, `delete-${slug}`, removeRules ? [rulesDir] : [], (text) => (text === null ? null : removeModeText(text, slug)),
    removeRules ? async () => { if (await stillRecorded(file)) { await removeFolder(rulesDir); removed.rules = true; } } : undefined);
  return result(slug, 'deleted', paths.scope, file, w, removed.rules ? rulesDir : '');
}

/** A path as the permission rules see it: relative to the root when inside it, else absolute. */
export function shownPath(path: string, root: string): string {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith('/') ? rel : path;
}
