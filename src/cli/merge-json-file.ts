// Writes a merge into a JSON(C) config an export shares with its owner (.cursor/hooks.json): through
// links, with a backup of the old file, atomically. The merge itself is the caller's; it never prints.
import { dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { makeFolder, writeFileAtomic } from '../files/atomic-write.js';
import { FileWriteError } from '../files/write-errors.js';
import { JsonSyntaxError, JsonTooDeepError } from '../jsonc/read.js';
import type { UpsertOutcome } from '../jsonc/edit.js';
import { backup, resolveTarget } from './add-to-mcp-config.js';

export interface MergeResult {
  ok: boolean;
  /** One report line: what happened to the file, or why nothing was written. */
  line: string;
  /** What would be written, for --dry-run (absent when nothing would change). */
  preview?: { verb: 'write' | 'update'; text: string };
}

async function readIfExists(path: string): Promise<string | null> {
  try { return await readFile(path, 'utf8'); } catch (err) {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return null;
    throw err;
  }
}

/** write; dry-run (show, write nothing); check (write nothing, fail when the file would change). */
export type MergeMode = 'write' | 'dry-run' | 'check';

/** Applies `merge` to `file` (its text, or '' when absent); `what` names the change in the report. */
export async function mergeJsonFile(file: string, merge: (text: string) => UpsertOutcome, what: string, mode: MergeMode, project: string | null = null): Promise<MergeResult> {
  const real = await resolveTarget(file);
  if (typeof real !== 'string') return { ok: false, line: `refused: ${real.refused}` };
  let old: string | null;
  let outcome: UpsertOutcome;
  try {
    old = await readIfExists(real);
    outcome = merge(old ?? '');
  } catch (err) {
    if (err instanceof JsonSyntaxError || err instanceof JsonTooDeepError) return { ok: false, line: `refused: ${file} is not valid JSON (${err.message}); fix it first` };
    return { ok: false, line: err instanceof FileWriteError ? `failed: ${err.message}` : `failed: ${file}: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!outcome.ok) return { ok: false, line: `refused: cannot edit ${file} safely: ${outcome.reason}` };
  if (old !== null && outcome.text === old) return { ok: true, line: `unchanged: ${file}` };
  if (mode === 'check') return { ok: false, line: `${old === null ? 'missing' : 'stale'}: ${file} (${what}: missing or out of date)` };
  const verb = old === null ? 'write' : 'update';
  if (mode === 'dry-run') return { ok: true, line: `would ${verb}: ${file} (${what})`, preview: { verb, text: outcome.text } };
  try {
    await makeFolder(dirname(real));
    const saved = old === null ? null : await backup(real, project);
    await writeFileAtomic(real, outcome.text);
    return { ok: true, line: `${old === null ? 'wrote' : 'updated'}: ${file} (${what}${saved ? `; previous version kept as ${saved}` : ''})` };
  } catch (err) {
    return { ok: false, line: err instanceof FileWriteError ? `failed: ${err.message}` : `failed: ${file}: ${err instanceof Error ? err.message : String(err)}` };
  }
}
