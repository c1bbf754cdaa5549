// Backup files of mode sets: what one holds (the sets' exact text, checksums, which set was
// active), how it is named, written and read back. A backup is created exclusively and so never
// overwrites another; reading one never trusts its file names or content without checking them.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readModeFileText } from '../modes/mode-file.js';
import { ValidationError } from '../rpc/errors.js';
import { writeFileExclusive } from '../files/atomic-write.js';
import { BACKUP_EXTENSIONS, checkBareName, checkFileName, SET_EXTENSIONS, type ModesetPaths } from './paths.js';
import { listNames, listSets, MAX_BACKUP_BYTES, readPointer, readSmallFile } from './set-files.js';
import { toYaml, type Plain } from '../yaml/write.js';
import { isRecord } from '../rpc/jsonrpc.js';

export const BACKUP_FORMAT = 1;

export type BackupReason = 'manual' | 'pre-select' | 'pre-repair' | 'pre-restore';

export interface BackupFileEntry { name: string; content: string; sha256: string }

export interface BackupDoc {
  created_at: string;
  reason: string;
  name?: string;
  session_binding_included: boolean;
  /** The set that was active (null: .roomodes), when the binding was included. */
  active_mode_set?: string | null;
  /** The pointer file's exact content (null: no pointer file), when the binding was included. */
  active_mode_set_raw?: string | null;
  /** The set this backup is mainly about (the active one, or the one repaired). */
  primary?: string;
  files: BackupFileEntry[];
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const two = (n: number): string => String(n).padStart(2, '0');

/** `mode_backup_YYYYMMDD_HHMMSS[_name][_n].yaml`, UTC; `n` counts from 2 when the second is taken. */
export function backupFileName(at: Date, name?: string, n = 1): string {
  const stamp = `${at.getUTCFullYear()}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}_${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}`;
  return `mode_backup_${stamp}${name ? `_${name}` : ''}${n > 1 ? `_${n}` : ''}.yaml`;
}

export interface WriteBackupOptions {
  reason: BackupReason;
  name?: string;
  includeBinding: boolean;
  /** Only these sets (default: every set in roles/). */
  only?: readonly string[];
  primary?: string;
  now: Date;
}

export interface WrittenBackup { file: string; path: string; sets: string[]; skipped: string[]; doc: BackupDoc; bytes: number }

/** Collects the sets' text and writes a new backup file; never replaces an existing one. */
export async function writeBackup(paths: ModesetPaths, o: WriteBackupOptions): Promise<WrittenBackup> {
  if (o.name !== undefined) checkBareName('backup_name', o.name);
  await paths.ensureDir(paths.backups);
  const files: BackupFileEntry[] = [];
  const skipped: string[] = [];
  for (const name of o.only ?? (await listSets(paths))) {
    try {
      const at = await paths.inside(paths.roles, name, 'mode_file');
      if (!at.exists) continue;
      const { text } = await readSmallFile(at.path, name);
      files.push({ name, content: text, sha256: sha256(text) });
    } catch {
      // A set that cannot be read safely (symlink out, too large) is named in the answer instead.
      skipped.push(name);
    }
  }
  const doc: BackupDoc = { created_at: o.now.toISOString(), reason: o.reason, session_binding_included: o.includeBinding, files };
  if (o.name !== undefined) doc.name = o.name;
  if (o.includeBinding) {
    const pointer = await readPointer(paths, true);
    doc.active_mode_set = pointer.invalid ? null : pointer.name;
    doc.active_mode_set_raw = pointer.invalid ? null : pointer.raw;
  }
  if (o.primary !== undefined) doc.primary = o.primary;
  const text = toYaml(docToPlain(doc), [`roo-modes-server mode-set backup (${o.reason}); restore with orchestrator_mode_restore.`]);
  for (let n = 1; n < 1000; n++) {
    const file = backupFileName(o.now, o.name, n);
    const path = join(paths.backups, file);
    if (await writeFileExclusive(path, text)) return { file, path, sets: files.map((f) => f.name), skipped, doc, bytes: Buffer.byteLength(text) };
  }
  throw new ValidationError('Too many backups in one second', { message: 'Could not find a free backup name', error_type: 'backup_name_exhausted', recovery_suggestions: ['Retry in a second'] });
}

function docToPlain(d: BackupDoc): Plain {
  const out: { [k: string]: Plain } = { backup_format: BACKUP_FORMAT, created_at: d.created_at, reason: d.reason };
  if (d.name !== undefined) out.name = d.name;
  out.session_binding_included = d.session_binding_included;
  if (d.session_binding_included) {
    out.active_mode_set = d.active_mode_set ?? null;
    out.active_mode_set_raw = d.active_mode_set_raw ?? null;
  }
  if (d.primary !== undefined) out.primary = d.primary;
  out.files = d.files.map((f) => ({ name: f.name, sha256: f.sha256, content: f.content }));
  return out;
}


function corrupt(file: string, issue: string): ValidationError {
  return new ValidationError(`Backup ${file} cannot be restored: ${issue}`, {
    message: `Backup ${file} cannot be restored: ${issue}`,
    error_type: 'backup_invalid', file, issue,
    recovery_suggestions: ['Pick another backup (orchestrator_mode_restore lists them when the name is unknown)'],
  });
}

export const listBackups = (paths: ModesetPaths): Promise<string[]> => listNames(paths.backups, BACKUP_EXTENSIONS);

/** Parses and checks a backup's text: its format, each file name and checksum, the pointer. */
export function parseBackup(text: string, file: string): BackupDoc {
  let value: unknown;
  try {
    value = readModeFileText(text, { jsonFallback: true }).value;
  } catch (err) {
    throw corrupt(file, `it is not valid YAML (${(err as Error).message})`);
  }
  if (!isRecord(value) || value.backup_format !== BACKUP_FORMAT) throw corrupt(file, `it is not a mode-set backup of format ${BACKUP_FORMAT}`);
  if (!Array.isArray(value.files)) throw corrupt(file, 'it has no files list');
  const files: BackupFileEntry[] = [];
  for (const f of value.files as unknown[]) {
    if (!isRecord(f) || typeof f.name !== 'string' || typeof f.content !== 'string' || typeof f.sha256 !== 'string') throw corrupt(file, 'a files entry lacks name, content or sha256');
    try { checkFileName('mode_file', f.name, SET_EXTENSIONS); } catch { throw corrupt(file, `it names an unsafe file ${JSON.stringify(f.name)}`); }
    if (sha256(f.content) !== f.sha256) throw corrupt(file, `the content of ${f.name} does not match its checksum`);
    if (files.some((g) => g.name === f.name)) throw corrupt(file, `${f.name} appears twice`);
    files.push({ name: f.name, content: f.content, sha256: f.sha256 });
  }
  const doc: BackupDoc = {
    created_at: typeof value.created_at === 'string' ? value.created_at : '',
    reason: typeof value.reason === 'string' ? value.reason : 'unknown',
    session_binding_included: value.session_binding_included === true,
    files,
  };
  if (typeof value.name === 'string') doc.name = value.name;
  if (typeof value.primary === 'string' && files.some((f) => f.name === value.primary)) doc.primary = value.primary;
  if (doc.session_binding_included) {
    const active = value.active_mode_set;
    const raw = value.active_mode_set_raw;
    if (active !== null && typeof active !== 'string') throw corrupt(file, 'active_mode_set must be a file name or null');
    if (raw !== null && typeof raw !== 'string') throw corrupt(file, 'active_mode_set_raw must be text or null');
    if (typeof active === 'string') {
      try { checkFileName('mode_file', active, SET_EXTENSIONS); } catch { throw corrupt(file, `it records an unsafe active set ${JSON.stringify(active)}`); }
    }
    if ((raw ?? '').trim() !== (active ?? '')) throw corrupt(file, 'active_mode_set and active_mode_set_raw disagree');
    doc.active_mode_set = active;
    doc.active_mode_set_raw = raw;
  }
  return doc;
}

/** Reads a backup by name from backups/ (name checks, symlink checks, size cap, then parseBackup). */
export async function readBackup(paths: ModesetPaths, name: string): Promise<{ doc: BackupDoc; path: string } | undefined> {
  checkFileName('backup_file', name, BACKUP_EXTENSIONS);
  const at = await paths.inside(paths.backups, name, 'backup_file');
  if (!at.exists) return undefined;
  const { text } = await readSmallFile(at.path, name, MAX_BACKUP_BYTES);
  return { doc: parseBackup(text, name), path: at.path };
}
