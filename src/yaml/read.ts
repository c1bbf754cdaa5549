// The YAML 1.2 reader's entry point: one document per text, core schema, positions of every collection.
// It never evaluates tags beyond the core types and never throws anything but YamlError for bad input.
//
// How it works: the text is normalised (one leading BOM dropped, CRLF → LF) and read in one pass by
// recursive descent — block.ts for indentation structure, flow.ts for [..]/{..} and
// inline scalars, scan.ts / scalars.ts for scalar text. Errors report the place a mature
// YAML 1.2 library reports them for the same mistakes, so users see familiar line numbers.
import { CH, YamlCursor, isBlankOrEnd } from './cursor.js';
import type { SourcePosition } from './error.js';
import { describeAt, endLine, readAtLineStart, readBlockNode, skipLinesFrom } from './block.js';
import { isDocumentMarker } from './scan.js';
import { MAX_JSON_DEPTH } from '../rpc/json-bounds.js';

export { YamlError } from './error.js';
export type { SourcePosition } from './error.js';

export interface YamlOptions {
  /** Deepest nesting of collections accepted (default 1000). */
  maxDepth?: number;
  /** Most nodes that aliases may stand for in total, counting what they name in full (default 10000). */
  maxAliasExpansion?: number;
  /** Most characters of scalar text that aliases may stand for in total, counted the same way (default 4000000). */
  maxAliasText?: number;
}

export interface YamlDocument {
  value: unknown;
  /** Start (1-based line/column) of every mapping and sequence in `value`. */
  positions: WeakMap<object, SourcePosition>;
}

/** The nesting bound every input shares (src/rpc/json-bounds.ts); the reader enforces it while reading. */
const DEFAULT_MAX_DEPTH = MAX_JSON_DEPTH;
const DEFAULT_MAX_ALIAS_EXPANSION = 10_000;
/**
 * Text that aliases may repeat: ample for a long role definition shared by a few modes, and far
 * below what would make a catalogue too large to serialise (a 10 MB file could otherwise name a
 * 1 MB string 10,000 times).
 */
const DEFAULT_MAX_ALIAS_TEXT = 4_000_000;

function limit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer`);
  return value;
}

/** Parses one YAML document. An empty text (or only comments) gives `null`. */
export function parseYaml(text: string, options: YamlOptions = {}): YamlDocument {
  if (typeof text !== 'string') throw new TypeError('parseYaml expects a string');
  const limits = {
    maxDepth: limit(options.maxDepth, DEFAULT_MAX_DEPTH, 'maxDepth'),
    maxAliasExpansion: limit(options.maxAliasExpansion, DEFAULT_MAX_ALIAS_EXPANSION, 'maxAliasExpansion'),
    maxAliasText: limit(options.maxAliasText, DEFAULT_MAX_ALIAS_TEXT, 'maxAliasText'),
  };
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const cursor = new YamlCursor(body.includes('\r\n') ? body.replace(/\r\n/g, '\n') : body, limits);
  try {
    return { value: readDocument(cursor), positions: cursor.positions };
  } catch (err) {
    // A maxDepth raised far beyond the default can still exhaust the stack: report it, do not crash.
    if (err instanceof RangeError && /call stack/i.test(err.message)) cursor.fail(cursor.pos, 'nesting too deep to read');
    throw err;
  }
}

function readDocument(c: YamlCursor): unknown {
  skipLinesFrom(c, 0);
  let directives = false;
  while (!c.atEnd() && c.code() === CH.PERCENT && c.column(c.pos) === 0) {
    directives = true;
    const nl = c.text.indexOf('\n', c.pos);
    if (nl === -1) c.pos = c.text.length;
    else skipLinesFrom(c, nl + 1);
  }
  const atStartMarker = !c.atEnd() && c.code() === CH.DASH && isDocumentMarker(c, c.pos);
  if (directives && !atStartMarker) c.fail(c.pos, 'directives must be followed by a "---" line');
  let value: unknown = null;
  if (atStartMarker) {
    c.pos += 3;
    value = readBlockNode(c, -1, 'root');
  } else if (!c.atEnd() && !isDocumentMarker(c, c.pos)) {
    value = readAtLineStart(c, c.column(c.pos), -1, {}, c.mark());
  }
  if (!c.atEnd() && c.code() === CH.DOT && isDocumentMarker(c, c.pos)) {
    c.pos += 3;
    if (!endLine(c)) c.fail(c.pos, `unexpected ${describeAt(c)} after "..."`);
    if (!c.atEnd()) c.fail(c.pos, 'the file holds more than one YAML document');
  }
  if (!c.atEnd()) {
    if (c.code() === CH.DASH && isBlankOrEnd(c.code(c.pos + 3)) && isDocumentMarker(c, c.pos)) {
      c.fail(c.pos, 'the file holds more than one YAML document');
    }
    c.fail(c.pos, `unexpected ${describeAt(c)}`);
  }
  return value;
}
