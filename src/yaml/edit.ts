// A format-preserving editor for one block sequence under a top-level key of a YAML document:
// replace, remove or append an item, touching only that item's lines. It never rewrites the rest.
//
// How it works: the text is cut into lines and the sequence's items are found by indentation (an
// item starts at a `-` line at the sequence's indent; the sequence ends at the first content line
// indented less, or at the same indent without a `-`). Comments directly above an item travel with
// it. New items are written by the plain-data writer and indented to the sequence. Every edit is
// then checked by parsing the new text: if the key does not hold exactly the expected list, the
// edit is refused with YamlEditError, so an unusual layout can never be silently corrupted.
import { parseYaml } from './read.js';
import { toYaml, type Plain } from './write.js';

/** The layout could not be edited in place (flow style, odd indentation, a check that failed). */
export class YamlEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlEditError';
  }
}

export type SequenceEdit =
  | { op: 'replace'; index: number; value: Plain }
  | { op: 'remove'; index: number }
  | { op: 'append'; value: Plain };

export interface EditOptions {
  /** How the caller reads the text (e.g. with its own cleaning); default parseYaml(...).value. */
  parse?: (text: string) => unknown;
}

interface Item { lead: number; dash: number; end: number }
interface Layout {
  keyLine: number;
  /** `[]` after the key: an empty flow sequence that the first append turns into a block. */
  emptyFlow: boolean;
  indent: number | null;
  items: Item[];
}

const isBlank = (line: string): boolean => line.trim() === '';
const isComment = (line: string): boolean => line.trimStart().startsWith('#');
const indentOf = (line: string): number => line.length - line.trimStart().length;
const isDash = (line: string, indent: number): boolean =>
  indentOf(line) === indent && line[indent] === '-' && (line.length === indent + 1 || line[indent + 1] === ' ');
const isMarker = (line: string): boolean => /^(---|\.\.\.)(\s|$)/.test(line);

function keyPattern(key: string): RegExp {
  const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^(?:${k}|"${k}"|'${k}')[ \\t]*:(?:[ \\t]+(.*))?$`);
}

function locate(lines: readonly string[], key: string): Layout | null {
  const pattern = keyPattern(key);
  const keyLine = lines.findIndex((l) => pattern.test(l));
  if (keyLine < 0) return null;
  const rest = (pattern.exec(lines[keyLine]!)![1] ?? '').replace(/\s+#.*$/, '').trim();
  if (rest === '[]') return { keyLine, emptyFlow: true, indent: null, items: [] };
  if (rest !== '' && !rest.startsWith('#')) throw new YamlEditError(`"${key}" is not a block sequence (it is written inline); it cannot be edited in place`);
  let indent: number | null = null;
  const dashes: number[] = [];
  let lastContent = keyLine;
  for (let i = keyLine + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (isBlank(line) || isComment(line)) continue;
    if (isMarker(line)) break;
    if (indent === null) {
      const n = indentOf(line);
      if (line[n] !== '-' || !isDash(line, n)) break; // the key holds nothing (null): an empty list
      indent = n;
    }
    if (indentOf(line) < indent || (indentOf(line) === indent && !isDash(line, indent))) break;
    if (isDash(line, indent)) dashes.push(i);
    lastContent = i;
  }
  const items: Item[] = dashes.map((dash, n) => {
    const limit = n + 1 < dashes.length ? dashes[n + 1]! : lastContent + 1;
    let end = dash;
    for (let i = dash; i < limit; i++) if (!isBlank(lines[i]!) && !isComment(lines[i]!)) end = i;
    let lead = dash;
    while (lead - 1 > keyLine && isComment(lines[lead - 1]!)) lead--;
    return { lead, dash, end };
  });
  return { keyLine, emptyFlow: false, indent, items };
}

/** The lines of one sequence item holding `value`, at `indent`. */
function itemLines(value: Plain, indent: number): string[] {
  const pad = ' '.repeat(indent);
  return toYaml([value]).replace(/\n$/, '').split('\n').map((l) => (l === '' ? '' : pad + l));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k)
    && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Applies one edit to the block sequence at top-level `key` and returns the new text. A document
 * without the key gets it appended (for `append`); everything outside the edited item is kept
 * byte for byte, line endings and a leading byte-order mark included.
 */
export function editSequence(text: string, key: string, edit: SequenceEdit, options: EditOptions = {}): string {
  const parse = options.parse ?? ((t: string) => parseYaml(t).value);
  const bom = text.startsWith('\ufeff') ? '\ufeff' : '';
  const crlf = text.includes('\r\n');
  const body = (bom ? text.slice(1) : text).replace(/\r\n/g, '\n');
  const before = parse(text);
  if (before !== null && before !== undefined && (typeof before !== 'object' || Array.isArray(before))) {
    throw new YamlEditError('the document is not a mapping');
  }
  const oldList = (before as Record<string, unknown> | null)?.[key] ?? null;
  if (oldList !== null && !Array.isArray(oldList)) throw new YamlEditError(`"${key}" is not a list`);
  const expected = [...((oldList as unknown[] | null) ?? [])];

  const trailingNewline = body.endsWith('\n') || body === '';
  const lines = body === '' ? [] : body.replace(/\n$/, '').split('\n');
  const layout = locate(lines, key);
  if (layout === null && oldList !== null) throw new YamlEditError(`"${key}" is not written as a block at the top level; it cannot be edited in place`);
  if (layout && layout.items.length !== expected.length) {
    throw new YamlEditError(`found ${layout.items.length} item(s) of "${key}" by layout but the document holds ${expected.length}`);
  }
  const at = (index: number): Item => {
    const item = layout?.items[index];
    if (!item) throw new RangeError(`no item ${index} in "${key}"`);
    return item;
  };
  let out: string[];
  if (edit.op === 'replace') {
    const item = at(edit.index);
    expected[edit.index] = edit.value;
    out = [...lines.slice(0, item.dash), ...itemLines(edit.value, layout!.indent!), ...lines.slice(item.end + 1)];
  } else if (edit.op === 'remove') {
    const item = at(edit.index);
    expected.splice(edit.index, 1);
    const next = layout!.items[edit.index + 1];
    // Up to the next item's comments, so the blank lines between items go with the removed one.
    const stop = next ? next.lead : item.end + 1;
    out = [...lines.slice(0, item.lead), ...lines.slice(stop)];
    // The last item gone: the key says so (`[]`) rather than holding nothing (null).
    if (layout!.items.length === 1) out[layout!.keyLine] = lines[layout!.keyLine]!.replace(/:([ \t]*)(#.*)?$/, ': []$1$2');
  } else {
    expected.push(edit.value);
    if (layout === null) {
      if (before !== null && before !== undefined && Object.keys(before).length > 0 && lines.some(isMarker)) {
        throw new YamlEditError('the document uses markers (---); cannot add a key in place');
      }
      out = [...lines, `${key}:`, ...itemLines(edit.value, 2)];
    } else if (layout.emptyFlow || layout.items.length === 0) {
      const head = layout.emptyFlow ? lines[layout.keyLine]!.replace(/:\s*\[\]/, ':') : lines[layout.keyLine]!;
      out = [...lines.slice(0, layout.keyLine), head, ...itemLines(edit.value, layout.indent ?? 2), ...lines.slice(layout.keyLine + 1)];
    } else {
      const last = layout.items[layout.items.length - 1]!;
      const prev = layout.items[layout.items.length - 2];
      const spaced = prev !== undefined && isBlank(lines[last.lead - 1] ?? 'x') && last.lead - 1 > prev.end;
      out = [...lines.slice(0, last.end + 1), ...(spaced ? [''] : []), ...itemLines(edit.value, layout.indent!), ...lines.slice(last.end + 1)];
    }
  }
  let result = out.join('\n') + (trailingNewline || edit.op === 'append' ? '\n' : '');
  if (crlf) result = result.replace(/\n/g, '\r\n');
  result = bom + result;
  const after = parse(result);
  const got = (after as Record<string, unknown> | null)?.[key];
  if (!sameValue(expected, got ?? [])) throw new YamlEditError(`the edited "${key}" did not read back as intended; the file was left as it was`);
  // Nothing but the key may change: every other top-level entry must read back the same.
  for (const k of Object.keys((before as Record<string, unknown> | null) ?? {})) {
    if (k !== key && !sameValue((before as Record<string, unknown>)[k], (after as Record<string, unknown>)[k])) {
      throw new YamlEditError(`the edit would change "${k}"; the file was left as it was`);
    }
  }
  return result;
}
