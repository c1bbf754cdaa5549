// File access for mode sets: list and read the sets in roles/, and read or write the pointer
// (active_mode_set). Every name passes the checks in paths.ts first; it never reads a file larger
// than MAX_SET_BYTES and never writes except through src/files/atomic-write.ts.
import { readdir, readFile, stat } from 'node:fs/promises';
import { ValidationError } from '../rpc/errors.js';
import { removeFile, writeFileAtomic } from '../files/atomic-write.js';
import { checkFileName, SET_EXTENSIONS, type ModesetPaths, type NameKind } from './paths.js';

/** Mode sets are small hand-written files; anything bigger is refused before it is read whole. */
export const MAX_SET_BYTES = 1024 * 1024;
/** A backup holds several sets. */
export const MAX_BACKUP_BYTES = 32 * 1024 * 1024;

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** File names in `dir` that could be a set (or backup): safe names with one of `extensions`. */
export async function listNames(dir: string, extensions: readonly string[]): Promise<string[]> {
  let entries: string[];
  try { entries = await readdir(dir); } catch { return []; }
  return entries
    .filter((n) => SAFE_NAME.test(n) && !n.includes('..') && extensions.some((e) => n.toLowerCase().endsWith(e)))
    .sort((a, b) => a.localeCompare(b));
}

export const listSets = (paths: ModesetPaths): Promise<string[]> => listNames(paths.roles, SET_EXTENSIONS);

/** Reads a file already resolved inside its folder, refusing huge ones. */
export async function readSmallFile(path: string, name: string, limit = MAX_SET_BYTES): Promise<{ text: string; mtime: Date }> {
  const info = await stat(path);
  if (!info.isFile()) {
    throw new ValidationError(`${name} is not a regular file`, {
      message: `${name} is not a regular file`, error_type: 'not_a_file', file: name, issue: 'not a regular file',
      recovery_suggestions: ['Remove or rename the entry'],
    });
  }
  if (info.size > limit) {
    throw new ValidationError(`${name} is too large (${info.size} bytes; at most ${limit})`, {
      message: `${name} is ${info.size} bytes; the limit is ${limit} bytes`,
      error_type: 'file_too_large', file: name, size: info.size, issue: `larger than ${limit} bytes`,
      recovery_suggestions: ['Split the set into smaller sets'],
    });
  }
  return { text: await readFile(path, 'utf8'), mtime: info.mtime };
}

/** An unknown-name error listing what exists (-32004). */
export function notFound(kind: NameKind, name: string, what: string, available: readonly string[], extra: string[] = []): ValidationError {
  return new ValidationError(`No ${what} named ${JSON.stringify(name)}`, {
    message: `No ${what} named "${name}". Available: ${available.length ? available.join(', ') : '(none)'}`,
    error_type: 'not_found',
    argument: kind,
    file: name,
    issue: `no ${what} of that name exists`,
    available: [...available],
    recovery_suggestions: [
      available.length ? `Use one of: ${available.slice(0, 20).join(', ')}` : `No ${what} exists yet`,
      ...extra,
    ],
  });
}

/** The pointer as stored: the selected set's file name, or null when .roomodes is in force. */
export interface Pointer {
  name: string | null;
  /** The raw file content (null when there is no pointer file). */
  raw: string | null;
  /** True when the pointer names something that is not a safe set name. */
  invalid: boolean;
}

export async function readPointer(paths: ModesetPaths): Promise<Pointer> {
  let raw: string;
  try { raw = await readFile(paths.pointer, 'utf8'); } catch { return { name: null, raw: null, invalid: false }; }
  const name = raw.trim();
  if (name === '') return { name: null, raw, invalid: false };
  try {
    checkFileName('mode_file', name, SET_EXTENSIONS);
    return { name, raw, invalid: false };
  } catch {
    return { name, raw, invalid: true };
  }
}

/** Writes the pointer last in any operation, so a crash before it leaves the old selection. */
export async function writePointer(paths: ModesetPaths, name: string | null): Promise<void> {
  if (name === null) await removeFile(paths.pointer);
  else await writeFileAtomic(paths.pointer, `${name}\n`);
}

/** Puts back a pointer file's exact content as recorded in a backup (null: no pointer file). */
export async function writePointerRaw(paths: ModesetPaths, raw: string | null): Promise<void> {
  if (raw === null) await removeFile(paths.pointer);
  else await writeFileAtomic(paths.pointer, raw);
}
