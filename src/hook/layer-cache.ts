// The command hook's memory of parsed mode files between its processes: each call starts a new
// process, and parsing a large .roomodes was most of what it did. An entry holds one file's parse
// under the sha256 of its exact text, so a changed file (whatever its size or time say) is parsed
// again. Every failure here is a miss: the hook then parses, as it would without the cache.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LayerCache, LayerKey, LayerResult } from '../modes/catalogue.js';

/** Bumped when an entry's shape changes. */
const FORMAT = 1;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

interface Entry { format: number; textHash: string; result: LayerResult }

/**
 * The cache in `dir` for the code identified by `codeId` (another build never reads this one's
 * entries). One entry per file and question (source, fallback, conversion, slug asked), replaced
 * when the file's text changes, so the folder holds at most one entry for each. The folder must be
 * this user's alone (created 0700; not used when another user owns it or others may write to it),
 * since an entry stands in for the user's mode files.
 */
export function fileLayerCache(dir: string, codeId: string): LayerCache {
  const usable = (): boolean => {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const st = statSync(dir);
      return st.isDirectory() && (st.mode & 0o022) === 0 && (typeof process.getuid !== 'function' || st.uid === process.getuid());
    } catch { return false; }
  };
  // Looked at on first use only: a call that parses no mode file never touches the folder.
  const state: { ready?: boolean } = {};
  const ready = (): boolean => (state.ready ??= usable());
  const entryFile = (key: LayerKey): string => join(dir, `${sha256(JSON.stringify([codeId, key.file, key.source, key.jsonFallback, key.converted, key.onlySlug ?? null]))}.json`);
  return {
    get(key) {
      if (!ready()) return undefined;
      try {
        const entry = JSON.parse(readFileSync(entryFile(key), 'utf8')) as Entry;
        return entry.format === FORMAT && entry.textHash === sha256(key.text) ? entry.result : undefined;
      } catch { return undefined; }
    },
    set(key, result) {
      if (!ready()) return;
      const file = entryFile(key);
      const temp = `${file}.${process.pid}.tmp`;
      try {
        // Written aside and renamed: a reader sees the old entry or the new one, never half of one.
        writeFileSync(temp, JSON.stringify({ format: FORMAT, textHash: sha256(key.text), result } satisfies Entry), { mode: 0o600 });
        renameSync(temp, file);
      } catch {
        // A cache that cannot be written is only slower.
        try { rmSync(temp, { force: true }); } catch { /* nothing more to do */ }
      }
    },
  };
}
