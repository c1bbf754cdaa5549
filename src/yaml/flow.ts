// Reads flow nodes: [sequences], {mappings}, quoted/plain scalars and aliases, including JSON-style
// documents. It never reads block structure; lines inside must stay indented at least `minIndent`.
import { CH, YamlCursor, isBlankOrEnd, isFlowIndicator, type Mark } from './cursor.js';
import { claimKey, finishCollection, finishEmpty, finishScalar, newMapping, pairMapping, putEntry } from './nodes.js';
import type { NodeProps } from './scan.js';
import { indentAt, isDocumentMarker, readAliasName, readProps, scanPlain, scanQuoted, skipComment } from './scan.js';

/** A node read inline (in flow context, or on one line of block context). */
export interface InlineNode {
  value: unknown;
  start: number;
  end: number;
  /** Quoted scalar or flow collection: a following ":" needs no space after it. */
  jsonLike: boolean;
  /** A plain scalar that stopped at a ": " indicator. */
  beforeColon: boolean;
  /** For scalars: the text before resolution, so a tag written on an earlier line can still apply. */
  text?: string;
  plain?: boolean;
}

/** Implicit keys longer than this are refused, as YAML 1.2 requires. */
const MAX_IMPLICIT_KEY = 1024;

/**
 * Skips blanks, comments and line breaks inside a flow collection at nesting `level`. Returns
 * whether a line break was crossed.
 */
export function skipFlowSpace(c: YamlCursor, minIndent: number, level: number): boolean {
  let crossed = false;
  for (;;) {
    const code = c.code();
    if (code === CH.SPACE || code === CH.TAB || code === CH.CR) {
      c.pos += 1;
    } else if (code === CH.HASH) {
      const previous = c.code(c.pos - 1);
      if (previous !== CH.SPACE && previous !== CH.TAB && previous !== CH.LF) c.fail(c.pos, 'a comment must be separated from the text before it by a space');
      skipComment(c);
    } else if (code === CH.LF) {
      c.pos += 1;
      crossed = true;
      const indent = indentAt(c, c.pos);
      let first = c.pos + indent;
      while (c.code(first) === CH.TAB || c.code(first) === CH.SPACE) first += 1;
      const lead = c.code(first);
      if (lead === CH.LF || lead === CH.HASH || Number.isNaN(lead)) continue;
      if (indent === 0 && isDocumentMarker(c, c.pos)) c.fail(c.pos, 'document marker inside a flow collection');
      const closesOuter = level === 1 && indent === minIndent - 1 && (lead === CH.RBRACKET || lead === CH.RBRACE);
      if (indent < minIndent && !closesOuter) c.fail(first, 'flow collection line is not indented enough');
    } else {
      return crossed;
    }
  }
}

/** True at a ":" that separates a flow key from its value. */
function atValueIndicator(c: YamlCursor, afterJsonLike: boolean): boolean {
  if (c.code() !== CH.COLON) return false;
  const next = c.code(c.pos + 1);
  return afterJsonLike || isBlankOrEnd(next) || isFlowIndicator(next);
}

/** True at the end of an entry: "," or the collection's closing bracket. */
function atEntryEnd(c: YamlCursor, close: number): boolean {
  const code = c.code();
  return code === CH.COMMA || code === close;
}

/** Reads one flow node (with optional anchor/tag) at the cursor. */
export function readFlowNode(c: YamlCursor, minIndent: number, level: number): InlineNode {
  const start = c.pos;
  const mark = c.mark();
  const props = readProps(c);
  if (c.pos === start) return readInlineNode(c, minIndent, level, true, props, mark);
  skipFlowSpace(c, minIndent, level);
  const code = c.code();
  const ends = Number.isNaN(code) || code === CH.COMMA || code === CH.RBRACKET || code === CH.RBRACE;
  if (ends || atValueIndicator(c, false)) {
    return { value: finishEmpty(c, props, mark), start, end: c.pos, jsonLike: false, beforeColon: false };
  }
  const node = readInlineNode(c, minIndent, level, true, props, mark);
  node.start = start;
  return node;
}

/**
 * Reads the node at the cursor whose properties were already read: a flow collection, a quoted
 * or plain scalar, or an alias. `flow` says whether plain scalars stop at flow indicators.
 */
export function readInlineNode(c: YamlCursor, minIndent: number, level: number, flow: boolean, props: NodeProps, mark: Mark): InlineNode {
  const start = c.pos;
  const code = c.code();
  if (code === CH.LBRACKET || code === CH.LBRACE) {
    const value = code === CH.LBRACKET ? readFlowSequence(c, minIndent, level + 1) : readFlowMapping(c, minIndent, level + 1);
    return { value: finishCollection(c, value, props, mark), start, end: c.pos, jsonLike: true, beforeColon: false };
  }
  if (code === CH.DQUOTE || code === CH.SQUOTE) {
    const scalar = scanQuoted(c, minIndent);
    const value = finishScalar(c, scalar, false, props, mark);
    return { value, start, end: c.pos, jsonLike: true, beforeColon: false, text: scalar.text, plain: false };
  }
  if (code === CH.STAR) {
    if (props.anchor !== undefined || props.tag !== undefined) c.fail(start, 'an alias cannot have an anchor or tag');
    const value = c.useAlias(readAliasName(c), start);
    return { value, start, end: c.pos, jsonLike: false, beforeColon: false };
  }
  if (flow && (code === CH.DASH || code === CH.QUESTION) && (isBlankOrEnd(c.code(c.pos + 1)) || isFlowIndicator(c.code(c.pos + 1)))) {
    c.fail(start, `unexpected "${String.fromCharCode(code)}" inside a flow collection`);
  }
  const scalar = scanPlain(c, minIndent, flow);
  const value = finishScalar(c, scalar, true, props, mark);
  return { value, start, end: c.pos, jsonLike: false, beforeColon: scalar.beforeColon, text: scalar.text, plain: true };
}

/** Reads the value after a flow ":" (empty when the entry ends right there). */
function readFlowValue(c: YamlCursor, minIndent: number, level: number, close: number): unknown {
  c.pos += 1;
  skipFlowSpace(c, minIndent, level);
  if (atEntryEnd(c, close)) return finishEmpty(c, {}, c.mark());
  return readFlowNode(c, minIndent, level).value;
}

/** Reads `? key : value` (the "?" is at the cursor); returns the key and value. */
function readExplicitPair(c: YamlCursor, minIndent: number, level: number, close: number): [unknown, unknown] {
  c.pos += 1;
  skipFlowSpace(c, minIndent, level);
  const key = atEntryEnd(c, close) || atValueIndicator(c, false) ? finishEmpty(c, {}, c.mark()) : readFlowNode(c, minIndent, level).value;
  skipFlowSpace(c, minIndent, level);
  const value = atValueIndicator(c, true) ? readFlowValue(c, minIndent, level, close) : null;
  return [key, value];
}

function isExplicitKey(c: YamlCursor): boolean {
  if (c.code() !== CH.QUESTION) return false;
  const next = c.code(c.pos + 1);
  return isBlankOrEnd(next) || isFlowIndicator(next);
}

function readFlowSequence(c: YamlCursor, minIndent: number, level: number): unknown[] {
  const open = c.pos;
  c.enter(open);
  c.pos += 1;
  const items: unknown[] = [];
  c.place(items, open);
  for (;;) {
    skipFlowSpace(c, minIndent, level);
    if (c.code() === CH.RBRACKET) break;
    if (c.atEnd()) c.fail(open, 'flow sequence is never closed with "]"');
    if (c.code() === CH.COMMA) c.fail(c.pos, 'unexpected "," in flow sequence');
    let last: InlineNode | undefined;
    const entryAt = c.pos;
    if (isExplicitKey(c)) {
      const [key, value] = readExplicitPair(c, minIndent, level, CH.RBRACKET);
      items.push(pairMapping(c, key, value, entryAt));
    } else if (atValueIndicator(c, false)) {
      items.push(pairMapping(c, null, readFlowValue(c, minIndent, level, CH.RBRACKET), entryAt));
    } else {
      last = readFlowNode(c, minIndent, level);
      const crossed = skipFlowSpace(c, minIndent, level);
      if (atValueIndicator(c, last.jsonLike)) {
        if (crossed || c.spansLines(last.start, last.end)) {
          c.fail(last.start, 'implicit keys of flow sequence pairs need to be on a single line');
        }
        if (c.pos - last.start > MAX_IMPLICIT_KEY) c.fail(last.start, `implicit keys may be at most ${MAX_IMPLICIT_KEY} characters`);
        items.push(pairMapping(c, last.value, readFlowValue(c, minIndent, level, CH.RBRACKET), last.start));
      } else {
        items.push(last.value);
      }
    }
    skipFlowSpace(c, minIndent, level);
    const code = c.code();
    if (code === CH.COMMA) {
      c.pos += 1;
    } else if (code !== CH.RBRACKET) {
      if (c.atEnd()) c.fail(open, 'flow sequence is never closed with "]"');
      // Another node follows without a comma: it reads as the value of a pair keyed by the last one.
      if (last !== undefined && c.spansLines(last.start, last.end)) {
        c.fail(last.start, 'implicit keys of flow sequence pairs need to be on a single line');
      }
      c.fail(c.pos, 'missing "," between flow sequence items');
    }
  }
  c.pos += 1;
  c.leave();
  c.countNode();
  return items;
}

function readFlowMapping(c: YamlCursor, minIndent: number, level: number): Record<string, unknown> {
  const open = c.pos;
  c.enter(open);
  c.pos += 1;
  const map = newMapping();
  const seen = new Set<unknown>();
  c.place(map, open);
  for (;;) {
    skipFlowSpace(c, minIndent, level);
    if (c.code() === CH.RBRACE) break;
    if (c.atEnd()) c.fail(open, 'flow mapping is never closed with "}"');
    if (c.code() === CH.COMMA) c.fail(c.pos, 'unexpected "," in flow mapping');
    const keyAt = c.pos;
    if (isExplicitKey(c)) {
      const [key, value] = readExplicitPair(c, minIndent, level, CH.RBRACE);
      claimKey(c, seen, key, keyAt);
      putEntry(map, key, value);
    } else {
      let key: unknown = null;
      let jsonLike = false;
      if (!atValueIndicator(c, false)) {
        const node = readFlowNode(c, minIndent, level);
        key = node.value;
        jsonLike = node.jsonLike;
        skipFlowSpace(c, minIndent, level);
      }
      claimKey(c, seen, key, keyAt);
      const value = atValueIndicator(c, jsonLike) ? readFlowValue(c, minIndent, level, CH.RBRACE) : finishEmpty(c, {}, c.mark());
      putEntry(map, key, value);
    }
    skipFlowSpace(c, minIndent, level);
    const code = c.code();
    if (code === CH.COMMA) {
      c.pos += 1;
    } else if (code !== CH.RBRACE) {
      if (c.atEnd()) c.fail(open, 'flow mapping is never closed with "}"');
      c.fail(c.pos, 'missing "," between flow mapping items');
    }
  }
  c.pos += 1;
  c.leave();
  c.countNode();
  return map;
}
