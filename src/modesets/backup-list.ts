// The backups folder as a list: each backup's name, size and time (for orchestrator_mode_list),
// and pruning to the newest N (orchestrator_mode_backup keep). Removes only files named like our
// own backups, inside backups/, after the same name and symlink checks as every other access.
import { lstat } from 'node:fs/promises';
import { removeFile } from '../files/atomic-write.js';
import { listBackups } from './backup.js';
import type { ModesetPaths } from './paths.js';

/** `mode_backup_YYYYMMDD_HHMMSS…`: the names writeBackup gives (backupFileName in backup.ts). */
const OURS = /^mode_backup_(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})(?:_|\.)/;

export interface BackupRow { file: string; size: number; created_at: string }

/** When the backup was made, from its name (UTC), else from the file's modification time. */
function createdAt(file: string, mtime: Date): string {
  const m = OURS.exec(file);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : mtime.toISOString();
}

/** Every backup, newest first (same second: the later suffix first). Links and folders are left out. */
export async function backupRows(paths: ModesetPaths): Promise<BackupRow[]> {
  const rows: BackupRow[] = [];
  for (const file of await listBackups(paths)) {
    const at = await paths.inside(paths.backups, file, 'backup_file').catch(() => null);
    const info = at?.exists ? await lstat(at.path).catch(() => null) : null;
    if (!info?.isFile()) continue;
    rows.push({ file, size: info.size, created_at: createdAt(file, info.mtime) });
  }
  const suffix = (f: string): number => Number(/_(\d+)\.yaml$/.exec(f)?.[1] ?? 1);
  return rows.sort((a, b) => b.created_at.localeCompare(a.created_at) || suffix(b.file) - suffix(a.file) || b.file.localeCompare(a.file));
}

/** Removes our own backups beyond the newest `keep` (the one just written counts); returns their names. */
export async function pruneBackups(paths: ModesetPaths, keep: number, justWritten: string): Promise<string[]> {
  const ours = (await backupRows(paths)).filter((r) => OURS.test(r.file) && r.file !== justWritten);
  const removed: string[] = [];
  for (const row of ours.slice(Math.max(0, keep - 1))) {
    const at = await paths.inside(paths.backups, row.file, 'backup_file');
    if (at.exists && await removeFile(at.path)) removed.push(row.file);
  }
  return removed;
}
