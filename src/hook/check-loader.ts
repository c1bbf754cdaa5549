// The first code of the self-contained check (roo-modes-check.cjs). The check's own code follows in
// the same file, inside one block comment (from a line BODY_START to the last line, BODY_END): Node
// compiles the whole file before running any of it, and to that compile the code is a comment,
// skipped almost for free. This takes it out and compiles it once, through V8's code cache kept in
// the user's cache folder: compiling the check's ~150 KB of code was about half of what the hook
// added to Node's own start before every tool call it guards, and the cache takes most of that away
// (docs/performance.md). Nothing here decides anything: whatever fails only costs the cache, except
// a file whose code was altered so that it no longer stays in its comment, which is refused (run as
// the hook: exit 2, which blocks the call). A file cut short is no JavaScript at all: Node refuses
// it before any of this runs, and the exported hooks are set to block when the hook fails.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { hookCacheFolder, privateFolder, readCacheFile, writeCacheFile } from './cache-folder.js';

/** The line that opens the comment holding the check's code, and the last line, which closes it. */
export const BODY_START = '/*';
export const BODY_END = '*/';

/**
 * V8 flags set before the code compiles: the regex engine's, which the code sets on load anyway
 * (src/modes/regex-safety.ts) and which V8 counts in a cache's identity; and
 * --verify-snapshot-checksum, so that a damaged cache is refused rather than run (main.cts, which
 * keeps the server's cache, sets the same and says more).
 */
export const CHECK_V8_FLAGS = ['--enable-experimental-regexp-engine', '--enable-experimental-regexp-engine-on-excessive-backtracks', '--verify-snapshot-checksum'];

/** Cache files kept: one per build of the check, Node and flags; an upgrade leaves the old ones behind. */
export const MAX_CODE_CACHES = 8;

/** A cache file past this is not read (one holds the code and V8's data for it: about 350 KB). */
export const MAX_CODE_CACHE_BYTES = 16 * 1024 * 1024;

/** How many runs make a cache (the first, then each run that uses it until then). */
export const CODE_CACHE_GENERATIONS = 4;

/**
 * The check's code as the file holds it (the bytes between the line BODY_START and the last line,
 * BODY_END) and how many lines come before it (for stack traces). Throws when there is none. Lines
 * may end with CR LF, as Git writes them out on Windows where told to: JavaScript reads both alike.
 */
export function commentedBody(file: string, raw: Buffer): { bytes: Buffer; line: number; crlf: boolean } {
  const first = raw.indexOf(0x0a);
  const eol = first > 0 && raw[first - 1] === 0x0d ? '\r\n' : '\n';
  const start = raw.indexOf(`${eol}${BODY_START}${eol}`);
  const close = `${eol}${BODY_END}${eol}`;
  const from = start + eol.length + BODY_START.length + eol.length;
  const to = raw.length - close.length + eol.length;
  if (start < 0 || to <= from || raw.toString('latin1', to - eol.length) !== close) {
    throw new Error(`${file} is not a whole check file (its code is not in a comment from a line "${BODY_START}" to the last line "${BODY_END}"); export again to replace it`);
  }
  return { bytes: raw.subarray(from, to), line: raw.subarray(0, from).toString('latin1').split('\n').length - 1, crlf: eol === '\r\n' };
}

/**
 * The code itself. Unless `checked` (these very bytes passed before), throws, naming the line, when
 * it holds the comment's end: the file was edited, and what follows that point is not what it seems.
 */
export function codeOf(file: string, bytes: Buffer, line: number, checked = false): string {
  const code = bytes.toString('utf8');
  if (checked) return code;
  const at = code.indexOf(BODY_END);
  if (at >= 0) {
    throw new Error(`line ${line + code.slice(0, at).split('\n').length} of ${file} ends the comment that holds the check's code ("${BODY_END}"); export again rather than editing it`);
  }
  return code;
}

/**
 * What V8 checks a cache against besides the text: its version, the machine kind, and the flags the
 * process started with; and the Node binary itself, since two builds of one version may differ.
 */
function runtimeKey(): string {
  const text = `${process.execPath}\0${process.arch}\0${process.execArgv.join('\0')}\0${process.env.NODE_OPTIONS ?? ''}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `${process.version}-${h.toString(16).padStart(8, '0')}`;
}

/**
 * A cache file holds the code's bytes as the file had them (a 4-byte length, then the bytes), its
 * generation (one byte) and then V8's data. V8 itself checks only the code's length, and a copy
 * edited to the same length must not run the code the cache was made from: the bytes must be equal
 * (and so passed codeOf's check when the cache was made). Undefined when the file is missing or
 * made for other code.
 */
function readCache(at: string, bytes: Buffer): { data: Buffer; generation: number } | undefined {
  const held = readCacheFile(at, MAX_CODE_CACHE_BYTES);
  if (held === undefined || held.length < 5) return undefined;
  const n = held.readUInt32LE(0);
  if (n !== bytes.length || held.length <= 5 + n || !bytes.equals(held.subarray(4, 4 + n))) return undefined;
  return { generation: held[4 + n]!, data: held.subarray(5 + n) };
}

/** A cache file's text: the code's bytes (after their 4-byte length), the generation, V8's data. */
function cacheText(bytes: Buffer, generation: number, script: Script): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32LE(bytes.length, 0);
  return Buffer.concat([size, bytes, Buffer.of(generation), script.createCachedData()]);
}

/**
 * Runs the check's code in `file` as this CommonJS module (`module`, `require`) would, with
 * ROO_MODES_CODE_ID (the build's sha256 of that code) defined for it. Run by node itself, a failure
 * to start is said on stderr with exit code 2, which every agent that runs the hook takes as a refusal.
 */
export function runCheckBody(file: string, module: NodeJS.Module, require: NodeJS.Require, codeId: string): void {
  try {
    const { bytes, line, crlf } = commentedBody(file, readFileSync(file));
    let flagged = true;
    try { for (const flag of CHECK_V8_FLAGS) setFlagsFromString(flag); } catch { flagged = false; }
    // Only under V8 with its flags set, and only in a folder of this user's alone: the cache is run as code.
    const dir = hookCacheFolder(process.env, 'hook-code');
    // Copies with CR LF line ends hold other bytes for the same code id: a cache of their own, where
    // one shared with the LF copies would be made again by each kind in turn.
    const at = flagged && privateFolder(dir) ? join(dir, `${codeId.slice(0, 24)}${crlf ? '-crlf' : ''}-${runtimeKey()}.bin`) : undefined;
    const kept = at === undefined ? undefined : readCache(at, bytes);
    const code = codeOf(file, bytes, line, kept !== undefined);
    const script = new Script(`(function (exports, require, module, __filename, __dirname, ROO_MODES_CODE_ID) {${code}\n})`, {
      filename: file, lineOffset: line, ...(kept === undefined ? {} : { cachedData: kept.data }),
    });
    // A cache holds what the run that made it compiled, and V8 compiles the rest when it is first
    // called: a young cache is made again at exit, holding its own code and this run's, until the
    // ways the hook goes in this project (refused by group or by pattern, a path walked, a mode
    // file parsed) are all in it.
    const fresh = kept === undefined || script.cachedDataRejected === true;
    if (at !== undefined && (fresh || kept.generation < CODE_CACHE_GENERATIONS)) {
      process.once('exit', () => { writeCacheFile(dir, at, () => cacheText(bytes, fresh ? 1 : kept.generation + 1, script), MAX_CODE_CACHES); });
    }
    (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, file, dirname(file), codeId);
    // Code that compiled but is not the check (emptied, say) must not pass for a silent "no objection".
    if (typeof (module.exports as { runCheckFile?: unknown }).runCheckFile !== 'function') {
      throw new Error(`${file} holds no check (its code defines no runCheckFile); export again to replace it`);
    }
  } catch (err) {
    if (require.main !== module) throw err;
    process.stderr.write(`roo-modes-check: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  }
}
