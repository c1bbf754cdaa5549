// Crash-safe file writes for mode sets: new content goes to a hidden temp file beside the target,
// is flushed, then renamed (or hard-linked) into place. It never writes a target in place.
import { randomBytes } from 'node:crypto';
import { link, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Temp files start with "." and end with ".tmp", so no listing of sets or backups (names start
 * with a letter or digit) ever sees one, even when a crash leaves it behind.
 */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

export const isTempName = (name: string): boolean => name.startsWith('.') && name.endsWith('.tmp');

async function writeFlushed(path: string, data: string): Promise<void> {
  const fh = await open(path, 'wx', 0o644);
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Flushes a folder's entry table so a rename survives a power cut (best effort off Linux). */
async function syncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms cannot open or fsync a folder; the rename is still atomic there.
  } finally {
    await fh?.close();
  }
}

/** Replaces `target` with `data` atomically: readers see the old file or the new one, never a mix. */
export async function writeFileAtomic(target: string, data: string): Promise<void> {
  const tmp = tempPathFor(target);
  try {
    await writeFlushed(tmp, data);
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await syncDir(dirname(target));
}

/**
 * Creates `target` with `data` only if no file of that name exists (checked by the kernel through
 * link(2), so two writers can never both win). Returns false when the name was taken.
 */
export async function writeFileExclusive(target: string, data: string): Promise<boolean> {
  const tmp = tempPathFor(target);
  try {
    await writeFlushed(tmp, data);
    await link(tmp, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  await syncDir(dirname(target));
  return true;
}

/** Removes a file if it is there, durably. */
export async function removeFile(target: string): Promise<boolean> {
  try {
    await unlink(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  await syncDir(dirname(target));
  return true;
}
