// Reads YAML block structure: indented mappings and sequences, compact forms ("- key: v", "- - x"),
// indentless sequences, explicit "?" keys and block scalars. Flow nodes are delegated to flow.ts.
import { CH, YamlCursor, isBlankOrEnd, type Mark } from './cursor.js';
import type { InlineNode } from './flow.js';
import { readInlineNode } from './flow.js';
import { claimKey, finishCollection, finishEmpty, finishScalar, newMapping, putEntry } from './nodes.js';
import type { Chomping } from './scalars.js';
import { applyScalarTag, blockScalarValue } from './scalars.js';
import type { NodeProps } from './scan.js';
import { indentAt, isDocumentMarker, mayStartPlain, readProps, scanPlain, skipComment, skipInline } from './scan.js';

/** Where a node starts: after "key:" (value), after "-" / "?" / explicit ":" (entry), or after "---" (root). */
export type Slot = 'value' | 'entry' | 'root';

/** Implicit keys longer than this are refused, as YAML 1.2 requires. */
const MAX_IMPLICIT_KEY = 1024;

function hasProps(props: NodeProps): boolean {
  return props.anchor !== undefined || props.tag !== undefined;
}

function atIndicator(c: YamlCursor, code: number): boolean {
  return c.code() === code && isBlankOrEnd(c.code(c.pos + 1));
}

/** From the start of a line, skips blank and comment lines; the cursor stops on the next content. */
export function skipLinesFrom(c: YamlCursor, lineBegin: number): void {
  let begin = lineBegin;
  for (;;) {
    const spacesEnd = begin + indentAt(c, begin);
    let first = spacesEnd;
    while (c.code(first) === CH.SPACE || c.code(first) === CH.TAB) first += 1;
    const code = c.code(first);
    if (Number.isNaN(code)) {
      c.pos = c.text.length;
      return;
    }
    if (code === CH.LF || code === CH.HASH) {
      const nl = c.text.indexOf('\n', first);
      if (nl === -1) {
        c.pos = c.text.length;
        return;
      }
      begin = nl + 1;
      continue;
    }
    if (first > spacesEnd) c.fail(spacesEnd, 'a tab cannot be used to indent block content');
    c.pos = spacesEnd;
    return;
  }
}

/** Finishes the current line (blanks and a comment may remain) and moves to the next content. */
export function endLine(c: YamlCursor): boolean {
  skipInline(c);
  // A comment must be separated from the token before it by white space.
  const previous = c.code(c.pos - 1);
  if (c.code() === CH.HASH && c.pos > 0 && previous !== CH.SPACE && previous !== CH.TAB && previous !== CH.LF) return false;
  skipComment(c);
  if (c.atEnd()) return true;
  if (c.code() !== CH.LF) return false;
  skipLinesFrom(c, c.pos + 1);
  return true;
}

/** Names the character at the cursor for an "unexpected …" message. */
export function describeAt(c: YamlCursor): string {
  const ch = c.text[c.pos] ?? '';
  if ('-?:,[]{}#&*!|>\'"%@`'.includes(ch)) return `"${ch}"`;
  const word = /^[^\s]{1,24}/.exec(c.text.slice(c.pos, c.pos + 24))?.[0] ?? ch;
  return `text "${word}"`;
}

/** Reads the node that follows an indicator (or "---"), on the same line or on the lines below. */
export function readBlockNode(c: YamlCursor, owner: number, slot: Slot): unknown {
  const mark = c.mark();
  skipInline(c);
  const props = readProps(c);
  const code = c.code();
  if (Number.isNaN(code) || code === CH.LF || code === CH.HASH) {
    skipComment(c);
    endLine(c);
    return readNodeBelow(c, owner, slot === 'value', props, mark);
  }
  return readSameLine(c, owner, slot, props, mark);
}

/** The node sits on later lines: more indented than its owner, or an indentless "- " list. */
function readNodeBelow(c: YamlCursor, owner: number, indentlessOk: boolean, props: NodeProps, mark: Mark): unknown {
  if (c.atEnd()) return finishEmpty(c, props, mark);
  const column = c.column(c.pos);
  if (column === 0 && isDocumentMarker(c, c.pos)) return finishEmpty(c, props, mark);
  if (column > owner) return readAtLineStart(c, column, owner, props, mark);
  if (indentlessOk && column === owner && atIndicator(c, CH.DASH)) {
    return finishCollection(c, readBlockSequence(c, column), props, mark);
  }
  return finishEmpty(c, props, mark);
}

/** Reads a node whose first character starts a line at `indent`; `outer` props came on earlier lines. */
export function readAtLineStart(c: YamlCursor, indent: number, owner: number, outer: NodeProps, outerMark: Mark): unknown {
  if (atIndicator(c, CH.DASH)) return finishCollection(c, readBlockSequence(c, indent), outer, outerMark);
  if (atIndicator(c, CH.QUESTION)) return finishCollection(c, readBlockMapping(c, indent, null), outer, outerMark);
  const mark = c.mark();
  const props = readProps(c);
  const code = c.code();
  if (hasProps(props) && (Number.isNaN(code) || code === CH.LF || code === CH.HASH)) {
    if (hasProps(outer)) c.fail(c.pos, 'a node can have only one set of properties');
    skipComment(c);
    endLine(c);
    return readNodeBelow(c, owner, false, props, mark);
  }
  if (code === CH.PIPE || code === CH.GT) return readBlockScalar(c, owner, hasProps(props) ? props : outer, hasProps(props) ? mark : outerMark);
  const node = readInlineNode(c, owner + 1, 0, false, props, mark);
  skipInline(c);
  if (node.beforeColon || atIndicator(c, CH.COLON)) {
    checkImplicitKey(c, node);
    return finishCollection(c, readBlockMapping(c, indent, node), outer, outerMark);
  }
  if (!endLine(c)) c.fail(c.pos, `unexpected ${describeAt(c)}`);
  if (!hasProps(outer)) return node.value;
  if (hasProps(props)) c.fail(node.start, 'a node can have only one set of properties');
  return applyLateProps(c, node, outer, outerMark);
}

/** Applies properties written on a line above a scalar or flow node. */
function applyLateProps(c: YamlCursor, node: InlineNode, props: NodeProps, mark: Mark): unknown {
  let value = node.value;
  if (props.tag !== undefined && node.text !== undefined) {
    value = applyScalarTag(props.tag, node.text, node.value);
  }
  if (props.anchor !== undefined) c.defineAnchor(props.anchor, value, mark);
  return value;
}

function checkImplicitKey(c: YamlCursor, key: InlineNode): void {
  if (c.spansLines(key.start, key.end)) c.fail(key.start, 'implicit keys need to be on a single line');
  if (c.pos - key.start > MAX_IMPLICIT_KEY) c.fail(key.start, `implicit keys may be at most ${MAX_IMPLICIT_KEY} characters`);
}

/** The node starts on the indicator's own line. */
function readSameLine(c: YamlCursor, owner: number, slot: Slot, props: NodeProps, mark: Mark): unknown {
  const start = c.pos;
  const code = c.code();
  if (code === CH.PIPE || code === CH.GT) return readBlockScalar(c, owner, props, mark);
  const compactOk = slot === 'entry' && !hasProps(props);
  if (atIndicator(c, CH.DASH)) {
    if (compactOk) return readBlockSequence(c, c.column(start));
    c.fail(start, slot === 'value' ? 'a block sequence cannot start on the same line as its mapping key' : 'unexpected "-"');
  }
  if (atIndicator(c, CH.QUESTION)) {
    if (compactOk) return readBlockMapping(c, c.column(start), null);
    c.fail(start, 'unexpected "?"');
  }
  const node = readInlineNode(c, owner + 1, 0, false, props, mark);
  skipInline(c);
  if (node.beforeColon || atIndicator(c, CH.COLON)) {
    if (slot === 'value') c.fail(node.start, 'nested mappings are not allowed in compact mappings');
    checkImplicitKey(c, node);
    return readBlockMapping(c, c.column(node.start), node);
  }
  if (!endLine(c)) {
    const junkAt = c.pos;
    // Text glued to a finished node reads as a key when a ": " follows it (as in `key: "a"b: c`).
    if (slot === 'value' && mayStartPlain(c.text[junkAt] ?? '') && scanPlain(c, owner + 1, false).beforeColon) {
      c.fail(node.start, 'nested mappings are not allowed in compact mappings');
    }
    c.pos = junkAt;
    c.fail(junkAt, `unexpected ${describeAt(c)} after the value`);
  }
  return node.value;
}

function readBlockMapping(c: YamlCursor, indent: number, first: InlineNode | null): Record<string, unknown> {
  const startAt = first === null ? c.pos : first.start;
  c.enter(startAt);
  const map = newMapping();
  const seen = new Set<unknown>();
  c.place(map, startAt);
  let pending = first;
  for (;;) {
    let key: unknown;
    let value: unknown;
    const entryAt = c.pos;
    if (pending !== null) {
      claimKey(c, seen, pending.value, pending.start);
      key = pending.value;
      pending = null;
      c.pos += 1;
      value = readBlockNode(c, indent, 'value');
    } else if (atIndicator(c, CH.QUESTION)) {
      c.pos += 1;
      key = readBlockNode(c, indent, 'entry');
      claimKey(c, seen, key, entryAt);
      const hasValue = !c.atEnd() && c.column(c.pos) === indent && atIndicator(c, CH.COLON);
      if (hasValue) c.pos += 1;
      value = hasValue ? readBlockNode(c, indent, 'entry') : finishEmpty(c, {}, c.mark());
    } else if (atIndicator(c, CH.COLON)) {
      key = null;
      claimKey(c, seen, key, entryAt);
      c.pos += 1;
      value = readBlockNode(c, indent, 'value');
    } else {
      if (atIndicator(c, CH.DASH)) c.fail(entryAt, 'unexpected "-" where a mapping key was expected');
      const mark = c.mark();
      const props = readProps(c);
      const node = readInlineNode(c, indent + 1, 0, false, props, mark);
      skipInline(c);
      if (!node.beforeColon && !atIndicator(c, CH.COLON)) c.fail(node.start, 'a mapping key must be followed by ":"');
      checkImplicitKey(c, node);
      claimKey(c, seen, node.value, node.start);
      key = node.value;
      c.pos += 1;
      value = readBlockNode(c, indent, 'value');
    }
    putEntry(map, key, value);
    if (c.atEnd()) break;
    const column = c.column(c.pos);
    if (column < indent || (column === 0 && isDocumentMarker(c, c.pos))) break;
    if (column > indent) c.fail(c.pos, 'bad indentation of a mapping entry');
  }
  c.leave();
  c.countNode();
  return map;
}

function readBlockSequence(c: YamlCursor, indent: number): unknown[] {
  const startAt = c.pos;
  c.enter(startAt);
  const items: unknown[] = [];
  c.place(items, startAt);
  for (;;) {
    c.pos += 1;
    items.push(readBlockNode(c, indent, 'entry'));
    if (c.atEnd()) break;
    const column = c.column(c.pos);
    if (column < indent || (column === 0 && isDocumentMarker(c, c.pos))) break;
    if (column > indent) c.fail(c.pos, 'bad indentation of a sequence entry');
    if (!atIndicator(c, CH.DASH)) break;
  }
  c.leave();
  c.countNode();
  return items;
}

/** Reads a `|` or `>` scalar whose owner node is indented `owner`; leaves the cursor on the next content. */
function readBlockScalar(c: YamlCursor, owner: number, props: NodeProps, mark: Mark): unknown {
  const { text } = c;
  const folded = c.code() === CH.GT;
  c.pos += 1;
  let chomping: Chomping | undefined;
  let explicit = 0;
  for (let k = 0; k < 2; k += 1) {
    const code = c.code();
    if ((code === CH.PLUS || code === CH.DASH) && chomping === undefined) chomping = code === CH.PLUS ? 'keep' : 'strip';
    else if (code >= CH.DIGIT_1 && code <= CH.DIGIT_9 && explicit === 0) explicit = code - CH.DIGIT_1 + 1;
    else break;
    c.pos += 1;
  }
  const afterHeader = c.pos;
  skipInline(c);
  if (c.code() === CH.HASH && c.pos > afterHeader) skipComment(c);
  if (!c.atEnd() && c.code() !== CH.LF) c.fail(c.pos, 'invalid block scalar header');
  const bodyStart = Math.min(c.pos + 1, text.length);
  let indent = explicit > 0 ? Math.max(owner, 0) + explicit : -1;
  let deepestLeadingEmpty = 0;
  let end = text.length;
  for (let begin = bodyStart; begin < text.length;) {
    const spaces = indentAt(c, begin);
    const code = c.code(begin + spaces);
    if (code !== CH.LF && !Number.isNaN(code)) {
      if (indent < 0) {
        if (spaces <= owner) {
          end = begin;
          break;
        }
        if (deepestLeadingEmpty > spaces) {
          c.fail(begin, 'a block scalar with more-indented leading empty lines needs an indentation indicator');
        }
        indent = spaces;
      } else if (spaces < indent) {
        end = begin;
        break;
      }
      if (spaces === 0 && isDocumentMarker(c, begin)) {
        end = begin;
        break;
      }
    } else if (indent < 0) {
      deepestLeadingEmpty = Math.max(deepestLeadingEmpty, spaces);
    }
    const nl = text.indexOf('\n', begin);
    if (nl === -1) break;
    begin = nl + 1;
  }
  const pieces = text.slice(bodyStart, end).split('\n');
  const scalar = { text: blockScalarValue(pieces, folded, chomping ?? 'clip', Math.max(indent, 0)), start: afterHeader, end, beforeColon: false };
  const value = finishScalar(c, scalar, false, props, mark);
  if (end < text.length) skipLinesFrom(c, end);
  else c.pos = end;
  return value;
}
