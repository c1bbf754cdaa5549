// Reads the pieces of YAML that look the same in block and flow context: plain and quoted scalars,
// anchors, tags and aliases, plus white-space/comment skipping. It never builds collections.
import { CH, YamlCursor, isBlankOrEnd, isFlowIndicator } from './cursor.js';
import { decodeDoubleQuoted, decodeSingleQuoted, foldLines } from './scalars.js';

/** A scalar as read from the text, before tags and the core schema apply. */
export interface ScannedScalar {
  text: string;
  start: number;
  end: number;
  /** Stopped at a ": " mapping indicator (plain scalars only). */
  beforeColon: boolean;
}

export interface NodeProps { anchor?: string; anchorAt?: number; tag?: string }

/** Characters that end an anchor or alias name. */
function endsName(code: number): boolean {
  return isBlankOrEnd(code) || isFlowIndicator(code);
}

/** Skips spaces and tabs on the current line. */
export function skipInline(c: YamlCursor): void {
  let code = c.code();
  while (code === CH.SPACE || code === CH.TAB) code = c.code(++c.pos);
}

/** Skips to the end of the line (not past the break) when a comment starts here. */
export function skipComment(c: YamlCursor): void {
  if (c.code() !== CH.HASH) return;
  const nl = c.text.indexOf('\n', c.pos);
  c.pos = nl === -1 ? c.text.length : nl;
}

/** Counts the spaces that start the line beginning at `offset`. */
export function indentAt(c: YamlCursor, offset: number): number {
  let i = offset;
  while (c.code(i) === CH.SPACE) i += 1;
  return i - offset;
}

/** True at a "---" or "..." marker in column 0. */
export function isDocumentMarker(c: YamlCursor, offset: number): boolean {
  const first = c.code(offset);
  if (first !== CH.DASH && first !== CH.DOT) return false;
  if (c.code(offset + 1) !== first || c.code(offset + 2) !== first) return false;
  return isBlankOrEnd(c.code(offset + 3)) && c.column(offset) === 0;
}

/** Reads `&anchor` and `!tag` properties (in any order), each followed by optional blanks. */
export function readProps(c: YamlCursor): NodeProps {
  const props: NodeProps = {};
  for (;;) {
    const code = c.code();
    if (code !== CH.AMP && code !== CH.BANG) return props;
    const start = c.pos;
    let i = start + 1;
    while (!endsName(c.code(i))) i += 1;
    if (code === CH.AMP) {
      if (i === start + 1) c.fail(start, 'an anchor needs a name after "&"');
      if (props.anchor !== undefined) c.fail(start, 'a node can have only one anchor');
      props.anchor = c.text.slice(start + 1, i);
      props.anchorAt = start;
    } else {
      if (props.tag !== undefined) c.fail(start, 'a node can have only one tag');
      props.tag = c.text.slice(start, i);
    }
    c.pos = i;
    skipInline(c);
  }
}

/** Reads `*name` and returns the name. */
export function readAliasName(c: YamlCursor): string {
  const start = c.pos;
  let i = start + 1;
  while (!endsName(c.code(i))) i += 1;
  if (i === start + 1) c.fail(start, 'an alias needs a name after "*"');
  c.pos = i;
  return c.text.slice(start + 1, i);
}

/** Characters that may not begin a plain scalar even though nothing else claims them. */
const BAD_PLAIN_START: Readonly<Record<string, string>> = {
  '@': 'the reserved character "@"', '`': 'the reserved character "`"', '%': 'the directive indicator "%"',
  '|': 'a block scalar indicator "|"', '>': 'a block scalar indicator ">"', ',': 'a flow indicator ","',
  ']': 'a flow indicator "]"', '}': 'a flow indicator "}"',
};

/** True when a plain scalar may begin with this character (indicators aside). */
export function mayStartPlain(ch: string): boolean {
  return !(ch in BAD_PLAIN_START);
}

/**
 * Reads a plain scalar from the cursor. It may continue on following lines indented at least
 * `minIndent`; it stops at ": ", at " #", at a comment line, at a document marker and, in flow
 * context, at flow indicators. The cursor ends just after its last non-blank character.
 */
export function scanPlain(c: YamlCursor, minIndent: number, flow: boolean): ScannedScalar {
  const { text } = c;
  const start = c.pos;
  const bad = BAD_PLAIN_START[text[start] as string];
  if (bad !== undefined) c.fail(start, `a plain value cannot start with ${bad}`);
  const lines: string[] = [];
  const emptyBefore: number[] = [];
  let empties = 0;
  let lineStart = start;
  let i = start;
  let end = start;
  let beforeColon = false;
  for (;;) {
    // One line: find where its text ends.
    let lastContent = lineStart;
    let stopped = false;
    for (;;) {
      const code = text.charCodeAt(i);
      if (Number.isNaN(code) || code === CH.LF) break;
      if (code === CH.COLON) {
        const next = text.charCodeAt(i + 1);
        if (isBlankOrEnd(next) || (flow && isFlowIndicator(next))) {
          beforeColon = true;
          stopped = true;
          break;
        }
        lastContent = i + 1;
      } else if (code === CH.SPACE || code === CH.TAB) {
        if (text.charCodeAt(i + 1) === CH.HASH) {
          stopped = true;
          break;
        }
      } else if (flow && isFlowIndicator(code)) {
        stopped = true;
        break;
      } else if (code !== CH.CR) {
        lastContent = i + 1;
      }
      i += 1;
    }
    lines.push(text.slice(lineStart, lastContent));
    emptyBefore.push(empties);
    end = lastContent;
    if (stopped || i >= text.length) break;
    // At a line break: look for a continuation line.
    let j = i + 1;
    empties = 0;
    let next = -1;
    while (j <= text.length) {
      const lineBegin = j;
      while (text.charCodeAt(j) === CH.SPACE) j += 1;
      const indent = j - lineBegin;
      while (text.charCodeAt(j) === CH.TAB || text.charCodeAt(j) === CH.SPACE) j += 1;
      const code = text.charCodeAt(j);
      if (code === CH.LF) {
        empties += 1;
        j += 1;
        continue;
      }
      if (Number.isNaN(code) || code === CH.HASH || indent < minIndent) break;
      if (indent === 0 && isDocumentMarker(c, lineBegin)) break;
      if (flow && isFlowIndicator(code)) break;
      if (code === CH.COLON && (isBlankOrEnd(text.charCodeAt(j + 1)) || (flow && isFlowIndicator(text.charCodeAt(j + 1))))) break;
      next = j;
      break;
    }
    if (next === -1) break;
    lineStart = next;
    i = next;
  }
  c.pos = end;
  return { text: foldLines(lines, emptyBefore), start, end, beforeColon };
}

/**
 * Reads a single- or double-quoted scalar. Its continuation lines must be indented at least
 * `minIndent` (blank lines excepted) and may not be document markers.
 */
export function scanQuoted(c: YamlCursor, minIndent: number): ScannedScalar {
  const { text } = c;
  const start = c.pos;
  const double = text.charCodeAt(start) === CH.DQUOTE;
  let close = start;
  for (;;) {
    close = text.indexOf(double ? '"' : "'", close + 1);
    if (close === -1) break;
    if (double) {
      let slashes = 0;
      while (text.charCodeAt(close - 1 - slashes) === CH.BACKSLASH) slashes += 1;
      if (slashes % 2 === 0) break;
    } else if (text.charCodeAt(close + 1) === CH.SQUOTE) {
      close += 1;
    } else {
      break;
    }
  }
  const limit = close === -1 ? text.length : close;
  for (let nl = text.indexOf('\n', start); nl !== -1 && nl < limit; nl = text.indexOf('\n', nl + 1)) {
    const indent = indentAt(c, nl + 1);
    const after = text.charCodeAt(nl + 1 + indent);
    const blank = after === CH.LF || (after === CH.CR && text.charCodeAt(nl + 2 + indent) === CH.LF);
    if ((!blank && indent < minIndent) || (indent === 0 && isDocumentMarker(c, nl + 1))) {
      c.fail(nl, `missing closing ${double ? 'double' : 'single'} quote`);
    }
  }
  if (close === -1) c.fail(text.length, `missing closing ${double ? 'double' : 'single'} quote`);
  const body = text.slice(start + 1, close);
  const decoded = double
    ? decodeDoubleQuoted(body, (at, seq) => c.fail(start + 1 + at, `invalid escape sequence "${seq}"`))
    : decodeSingleQuoted(body);
  c.pos = close + 1;
  return { text: decoded, start, end: close + 1, beforeColon: false };
}
