// The command hook's memory of parsed mode files between its processes: each call starts a new
// process, and parsing a large .roomodes was most of what it did. An entry holds one file's parse
// with the exact text it was parsed from, so a changed file (whatever its size or time say) is parsed
// again. Every failure here is a miss: the hook then parses, as it would without the cache.
import { join } from 'node:path';
import { privateFolder, readCacheFile, writeCacheFile } from './cache-folder.js';
import type { LayerCache, LayerKey, LayerResult } from '../modes/catalogue.js';

/** Bumped when an entry's shape changes. */
const FORMAT = 2;

/**
 * Entries the folder keeps. One question has one entry, but every project, mode file and build asks
 * its own, and an entry holds a whole mode file: without a bound, every project ever checked and
 * every upgrade left theirs behind for good. Past it the entries written longest ago go.
 */
export const MAX_ENTRIES = 64;

/** An entry past this is not read (the file is parsed instead): it holds one mode file of at most 10 MiB, as JSON text and as parsed. */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/**
 * FNV-1a over the text's UTF-16 units, twice with other seeds (96 bits in all), for an entry's file
 * name only: an entry holds its whole question and text and is used only when both are equal, so a
 * name shared by two questions costs a miss, never a wrong answer. No node:crypto: loading it costs
 * the hook about 2 ms, more than all of this.
 */
function nameOf(text: string): string {
  let out = '';
  for (const seed of [0x811c9dc5, 0x01000193, 0x9e3779b9]) {
    let h = seed >>> 0;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}

interface Entry { format: number; question: string; text: string; result: LayerResult }

/**
 * The cache in `dir` for the code identified by `codeId` (another build never reads this one's
 * entries). One entry per question (the code, the file, its source, fallback and conversion, the
 * slug asked), replaced when the file's text changes, so the folder holds at most one for each, and
 * at most MAX_ENTRIES in all. The folder must be this user's alone (created 0700; not used when
 * another user owns it or others may write to it), since an entry stands in for the user's mode files.
 */
export function fileLayerCache(dir: string, codeId: string): LayerCache {
  // Looked at on first use only: a call that parses no mode file never touches the folder.
  const state: { ready?: boolean } = {};
  const ready = (): boolean => (state.ready ??= privateFolder(dir));
  const question = (key: LayerKey): string => JSON.stringify([codeId, key.file, key.source, key.jsonFallback, key.converted, key.onlySlug ?? null]);
  const entryFile = (q: string): string => join(dir, `${nameOf(q)}.json`);
  return {
    get(key) {
      if (!ready()) return undefined;
      try {
        const q = question(key);
        const bytes = readCacheFile(entryFile(q), MAX_ENTRY_BYTES);
        if (bytes === undefined) return undefined;
        const entry = JSON.parse(bytes.toString('utf8')) as Entry;
        return entry.format === FORMAT && entry.question === q && entry.text === key.text ? entry.result : undefined;
      } catch { return undefined; }
    },
    set(key, result) {
      if (!ready()) return;
      const q = question(key);
      writeCacheFile(dir, entryFile(q), () => JSON.stringify({ format: FORMAT, question: q, text: key.text, result } satisfies Entry), MAX_ENTRIES);
    },
  };
}
