// Where a scope's mode file and rules folders live, and the single steps of changing them: reading
// the mode file, backing up what is replaced (keeping the newest N), writing atomically. It never
// takes turns (mode-file-lock.ts does) or decides whether a caller may write (write-gate.ts does).
import { constants } from 'node:fs';
import { cp, lstat, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { makeFolder } from '../files/atomic-write.js';
import { asWriteError } from '../files/write-errors.js';
import { basename, dirname, join, resolve } from 'node:path';
import { MAX_MODE_FILE_BYTES } from '../modes/catalogue.js';
import { ValidationError } from '../rpc/errors.js';
import { replaceFile } from './turn-fence.js';
import type { SharedLeases } from './mode-file-lease.js';

export type Scope = 'project' | 'global';

export interface ScopeConfig {
  projectRoot: string | null; configDir: string; globalModesFile: string | null; homeDir: string;
  /** Backups kept per backups folder (`backups.keep`; default DEFAULT_BACKUPS_KEEP). */
  backupsKeep?: number;
  /** With a shared store, turns at mode files are its leases; without (the default), the host's pid locks. */
  leases?: SharedLeases | null;
}

/** The schema's default of `backups.keep`, for callers without a config (the CLI commands). */
export const DEFAULT_BACKUPS_KEEP = 20;
/** The project's one backups folder (under its root): mode-file writes and replaced client configs. */
export const PROJECT_BACKUPS = join('.roo', 'backups');

export interface ScopePaths {
  scope: Scope;
  /** The mode file written: the project's .roomodes, or the global file in force (else custom_modes.yaml). */
  modeFile: string;
  /** The `.roo` folder whose rules-<slug>/ folders belong to this scope. */
  rooDir: string;
  /** Nothing this scope writes may lead outside this folder. */
  confineRoot: string;
  /** Where backups of replaced files go. */
  backupRoot: string;
  /** How many backups that folder keeps; older ones are removed after each new one. */
  backupsKeep: number;
  /** How writers take turns at the mode file: the shared store's leases, or (null) the pid lock. */
  leases: SharedLeases | null;
}

const exists = async (path: string): Promise<boolean> => stat(path).then((s) => s.isFile(), () => false);

export async function scopePaths(scope: Scope, c: ScopeConfig): Promise<ScopePaths> {
  if (scope === 'project') {
    if (c.projectRoot === null) throw new ValidationError('No project root is known, so there is no project mode file', { message: 'set --project-root or use scope "global"' });
    const root = resolve(c.projectRoot);
    return { scope, modeFile: join(root, '.roomodes'), rooDir: join(root, '.roo'), confineRoot: root, backupRoot: join(root, PROJECT_BACKUPS), backupsKeep: c.backupsKeep ?? DEFAULT_BACKUPS_KEEP, leases: c.leases ?? null };
  }
  let modeFile = c.globalModesFile !== null ? resolve(c.globalModesFile) : null;
  for (const name of ['modes.yaml', 'custom_modes.yaml']) {
    if (modeFile === null && await exists(join(c.configDir, name))) modeFile = join(c.configDir, name);
  }
  const home = resolve(c.homeDir);
  return {
    scope, modeFile: modeFile ?? join(resolve(c.configDir), 'custom_modes.yaml'),
    rooDir: join(home, '.roo'), confineRoot: home, backupRoot: join(resolve(c.configDir), 'backups'), backupsKeep: c.backupsKeep ?? DEFAULT_BACKUPS_KEEP,
    leases: c.leases ?? null,
  };
}

/** A mode file's text, or null when it does not exist; larger files than the loader reads are refused. */
export async function readModeFile(file: string): Promise<string | null> {
  let handle;
  try {
    // Never blocking: a FIFO planted as the mode file must not hang the writer (it is refused below).
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return null;
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ValidationError(`${file} is not a regular file`, { message: 'the mode file must be a regular file', file });
    if (info.size > MAX_MODE_FILE_BYTES) throw new ValidationError(`${file} is larger than ${MAX_MODE_FILE_BYTES} bytes`, { message: 'mode file too large', file });
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * Copies what is about to be replaced into a fresh `<backupRoot>/<UTC stamp>-<label>/`; links are
 * copied as links. Then keeps only the newest `keep` backups there (never removing this one).
 * Returns the folder, or null when none of the paths exists (nothing to keep).
 */
export async function backUp(backupRoot: string, label: string, paths: readonly string[], keep: number, now = new Date()): Promise<string | null> {
  const present: string[] = [];
  for (const p of paths) if (await lstat(p).then(() => true, () => false)) present.push(p);
  if (present.length === 0) return null;
  const stamp = `${now.getUTCFullYear()}${two(now.getUTCMonth() + 1)}${two(now.getUTCDate())}T${two(now.getUTCHours())}${two(now.getUTCMinutes())}${two(now.getUTCSeconds())}Z`;
  await makeFolder(backupRoot);
  let dir = '';
  for (let n = 1; ; n++) {
    dir = join(backupRoot, `${stamp}-${label}${n > 1 ? `-${n}` : ''}`);
    try { await mkdir(dir); break; } catch (err) {
      if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST') || n > 1000) throw asWriteError(err, dir, 'create the folder');
    }
  }
  for (const p of present) {
    await cp(p, join(dir, basename(p)), { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false })
      .catch((err: unknown) => { throw asWriteError(err, join(dir, basename(p))); });
  }
  await pruneBackups(backupRoot, keep, basename(dir));
  return dir;
}

/** `<UTC stamp>-<label>`: the folders backUp makes; nothing else in the folder is ever removed. */
const BACKUP_NAME = /^(\d{8}T\d{6}Z)-[A-Za-z0-9-]+$/;

/** Removes the oldest of our backup folders in `root` until `keep` remain, `made` (the newest) counted. */
async function pruneBackups(root: string, keep: number, made: string): Promise<void> {
  const rows: { name: string; stamp: string; mtimeMs: number }[] = [];
  for (const e of await readdir(root, { withFileTypes: true })) {
    const m = BACKUP_NAME.exec(e.name);
    if (m === null || !e.isDirectory() || e.name === made) continue;
    const info = await lstat(join(root, e.name)).catch(() => null);
    if (info !== null) rows.push({ name: e.name, stamp: m[1]!, mtimeMs: info.mtimeMs });
  }
  // Oldest first: by the stamp in the name, then (same second) by when the folder was filled.
  rows.sort((a, b) => a.stamp.localeCompare(b.stamp) || a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name));
  for (const row of rows.slice(0, Math.max(0, rows.length - (keep - 1)))) await rm(join(root, row.name), { recursive: true, force: true });
}

/** The plain files directly in `dir` (names, sorted); links and folders are not listed. */
export async function topLevelFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name).sort();
}

/** Every path under `dir` (relative, sorted), for reports of what a replacement removes. */
export async function allEntries(dir: string, limit = 10_000): Promise<string[]> {
  const out: string[] = [];
  const walk = async (sub: string): Promise<void> => {
    const entries = await readdir(join(dir, sub), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (out.length >= limit) return;
      const rel = sub === '' ? e.name : `${sub}/${e.name}`;
      out.push(rel);
      if (e.isDirectory()) await walk(rel);
    }
  };
  await walk('');
  return out.sort();
}

/** Deletes `dir`; a link is removed, never followed. */
export async function removeFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Writes a mode file atomically (its folder created if needed), fenced in a turn with the store. */
export async function writeModeFile(file: string, text: string): Promise<void> {
  await makeFolder(dirname(file));
  await replaceFile(file, text);
}
