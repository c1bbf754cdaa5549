// File access for mode sets: list and read the sets in roles/, and read or write the pointer
// (active_mode_set). Every name passes the checks in paths.ts first; it never reads a file larger
// than MAX_SET_BYTES and never writes except through src/files/atomic-write.ts.
import { readdir } from 'node:fs/promises';
import { ValidationError } from '../rpc/errors.js';
import { readFileSafely, UnsafeFileError } from '../files/safe-read.js';
import { readPointerFile } from '../modes/pointer.js';
import { checkFileName, SET_EXTENSIONS, type ModesetPaths, type NameKind } from './paths.js';
import { replaceFile } from '../authoring/turn-fence.js';

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

/** Reads a file already resolved inside its folder (see paths.ts): a regular file of at most `limit` bytes. */
export async function readSmallFile(path: string, name: string, limit = MAX_SET_BYTES): Promise<{ text: string; mtime: Date }> {
  try {
    const r = await readFileSafely(path, { maxBytes: limit, links: 'follow' });
    return { text: r.text, mtime: new Date(r.mtimeMs) };
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw err;
    const large = err.reason === 'too_large';
    throw new ValidationError(`${name} ${err.problem}`, {
      message: large ? `${name} ${err.problem}` : `${name} cannot be used: it ${err.problem}`,
      error_type: large ? 'file_too_large' : err.reason === 'not_regular' ? 'not_a_file' : err.reason,
      file: name, issue: err.problem,
      recovery_suggestions: [large ? 'Split the set into smaller sets' : 'Remove or rename the entry'],
    });
  }
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
  /** The selected set; null when none is, or when the pointer is invalid (its content is never shown). */
  name: string | null;
  /** The raw file content (null when there is no pointer file, or it could not be read safely). */
  raw: string | null;
  /** True when the pointer holds something that is not a safe set name, or is not a safe file. */
  invalid: boolean;
  /** Why the pointer file itself was refused (a link, a FIFO, a device, too large). */
  unsafe?: string;
}

/**
 * Reads the pointer. A pointer file that is a symlink, FIFO, device or over the size cap is a
 * -32004 naming the file; with `tolerateUnsafe` (selecting or backing up, which replace or skip
 * it) it reads as invalid instead.
 */
export async function readPointer(paths: ModesetPaths, tolerateUnsafe = false): Promise<Pointer> {
  let raw: string | null;
  try {
    raw = await readPointerFile(paths.pointer);
  } catch (err) {
    const problem = err instanceof UnsafeFileError ? err.problem : `cannot be read (${String(err)})`;
    if (tolerateUnsafe) return { name: null, raw: null, invalid: true, unsafe: problem };
    throw new ValidationError(`The active mode-set pointer ${paths.pointer} ${problem}`, {
      message: `The active mode-set pointer ${paths.pointer} ${problem}; it must be a small regular file holding a set's file name`,
      error_type: 'unsafe_pointer', file: paths.pointer, issue: problem,
      recovery_suggestions: [`Remove ${paths.pointer}`, 'Or select a mode set (orchestrator_mode_select), which replaces it'],
    });
  }
  if (raw === null) return { name: null, raw: null, invalid: false };
  const name = raw.trim();
  if (name === '') return { name: null, raw, invalid: false };
  try {
    checkFileName('mode_file', name, SET_EXTENSIONS);
    return { name, raw, invalid: false };
  } catch {
    return { name: null, raw, invalid: true };
  }
}

/** Writes the pointer last in any operation, so a crash before it leaves the old selection. */
export async function writePointer(paths: ModesetPaths, name: string | null): Promise<void> {
  await replaceFile(paths.pointer, name === null ? null : `${name}\n`);
}

/** Puts back a pointer file's exact content as recorded in a backup (null: no pointer file). */
export async function writePointerRaw(paths: ModesetPaths, raw: string | null): Promise<void> {
  await replaceFile(paths.pointer, raw);
}
