// Edits JSON(-with-comments) text by splicing: a member is added or its fields replaced in place,
// so every other byte, comment and key stays as it was. It parses with read.ts and never reformats.
import { isDeepStrictEqual } from 'node:util';
import { parseJson, type Dialect, type JsonMember, type JsonNode } from './read.js';

export type UpsertOutcome =
  | { ok: true; action: 'added' | 'updated' | 'unchanged'; text: string }
  | { ok: false; reason: string };

const lineIndentAt = (text: string, offset: number): string => {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
};

/** The file's own indent step (its first indented line), else two spaces. */
const indentUnit = (text: string): string => /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';

/** Pretty JSON whose later lines start at `indent`, using the file's own line ending. */
const render = (value: unknown, unit: string, indent: string, eol = '\n'): string =>
  JSON.stringify(value, null, unit).split('\n').join(`${eol}${indent}`);

const eolOf = (text: string): string => (text.includes('\r\n') ? '\r\n' : '\n');

/** Pretty JSON on one line (`[ "a", "b" ]`), for a value that sat on one line before. */
const renderInline = (value: unknown): string => JSON.stringify(value, null, 1).replace(/\n */g, ' ');

const findMember = (node: JsonNode, key: string): JsonMember | undefined | 'duplicate' => {
  const found = (node.members ?? []).filter((m) => m.key === key);
  return found.length > 1 ? 'duplicate' : found[0];
};

/**
 * Makes `root[containerKey][name]` hold `fields` by splicing text, so comments, key order and
 * formatting elsewhere survive. A missing entry is added whole; an existing object entry gets only
 * the given fields set (each replaced in place or appended), and every other key it has is kept.
 * Refuses (ok: false) rather than lose anything: a non-object root or container, duplicate keys, or
 * a comment inside a value that would be replaced. The result is re-parsed and compared with the
 * intended value before it is returned.
 */
export function mergeNestedMember(text: string, dialect: Dialect, containerKey: string, name: string, fields: Record<string, unknown>): UpsertOutcome {
  const parsed = parseJson(text, dialect);
  const { root } = parsed;
  if (root.kind !== 'object' || root.members === undefined) return { ok: false, reason: 'the top level is not a JSON object' };
  const unit = indentUnit(text);
  const container = findMember(root, containerKey);
  if (container === 'duplicate') return { ok: false, reason: `the key "${containerKey}" appears more than once` };
  let action: 'added' | 'updated' = 'added';
  let edited: string;
  let entryValue: unknown = fields;
  if (container === undefined) {
    edited = insertMember(text, root, containerKey, { [name]: fields }, unit);
  } else {
    const servers = container.value;
    if (servers.kind !== 'object') return { ok: false, reason: `"${containerKey}" is not an object` };
    const existing = findMember(servers, name);
    if (existing === 'duplicate') return { ok: false, reason: `the entry "${name}" appears more than once in "${containerKey}"` };
    if (existing === undefined) {
      edited = insertMember(text, servers, name, fields, unit);
    } else if (existing.value.kind === 'object') {
      const merged = mergeFields(text, dialect, [containerKey, name], fields, unit);
      if (!merged.ok || merged.action === 'unchanged') return merged;
      action = 'updated';
      edited = merged.text;
      entryValue = { ...(existing.value.value as Record<string, unknown>), ...fields };
    } else {
      // Not an object (a string, null...): nothing in it to keep, so the entry is replaced whole.
      const inside = parsed.comments.some((c) => c.start < existing.value.end && c.end > existing.value.start);
      if (inside) return { ok: false, reason: `the existing "${name}" entry contains comments that replacing it would lose` };
      action = 'updated';
      const { start, end } = existing.value;
      edited = text.slice(0, start) + render(fields, unit, lineIndentAt(text, existing.keyStart), eolOf(text)) + text.slice(end);
    }
  }
  const expected = structuredClone(root.value) as Record<string, unknown>;
  const inner = expected[containerKey];
  expected[containerKey] = { ...(typeof inner === 'object' && inner !== null ? inner : {}), [name]: entryValue };
  if (!isDeepStrictEqual(parseJson(edited, dialect).root.value, expected)) {
    return { ok: false, reason: 'the edit could not be verified (internal check failed)' };
  }
  return { ok: true, action, text: edited };
}

/**
 * Makes the top-level `key` hold `value`: replaced in place (on one line when it was on one line)
 * or added as the last member. Refuses a non-object root, a duplicate key, or comments inside the
 * value it would replace; the result is re-parsed and compared with the intended value.
 */
export function setTopMember(text: string, dialect: Dialect, key: string, value: unknown): UpsertOutcome {
  const { root, comments } = parseJson(text, dialect);
  if (root.kind !== 'object' || root.members === undefined) return { ok: false, reason: 'the top level is not a JSON object' };
  const member = findMember(root, key);
  if (member === 'duplicate') return { ok: false, reason: `the key "${key}" appears more than once` };
  if (member !== undefined && isDeepStrictEqual(member.value.value, value)) return { ok: true, action: 'unchanged', text };
  let edited: string;
  if (member === undefined) {
    edited = insertMember(text, root, key, value, indentUnit(text));
  } else {
    const { start, end } = member.value;
    if (comments.some((c) => c.start < end && c.end > start)) return { ok: false, reason: `the "${key}" value contains comments that replacing it would lose` };
    const rendered = text.slice(start, end).includes('\n') ? render(value, indentUnit(text), lineIndentAt(text, member.keyStart), eolOf(text)) : renderInline(value);
    edited = text.slice(0, start) + rendered + text.slice(end);
  }
  const expected = { ...(root.value as Record<string, unknown>), [key]: value };
  if (!isDeepStrictEqual(parseJson(edited, dialect).root.value, expected)) return { ok: false, reason: 'the edit could not be verified (internal check failed)' };
  return { ok: true, action: member === undefined ? 'added' : 'updated', text: edited };
}

/** Sets each field inside the object at `path` (which exists), one splice and re-parse per field. */
function mergeFields(text: string, dialect: Dialect, path: [string, string], fields: Record<string, unknown>, unit: string): UpsertOutcome {
  const name = path[1];
  let current = text;
  let changed = false;
  for (const [key, value] of Object.entries(fields)) {
    const { root, comments } = parseJson(current, dialect);
    let entry = root;
    for (const step of path) {
      const m = findMember(entry, step);
      if (m === undefined || m === 'duplicate') return { ok: false, reason: 'the edit could not be verified (internal check failed)' };
      entry = m.value;
    }
    const member = findMember(entry, key);
    if (member === 'duplicate') return { ok: false, reason: `the key "${key}" appears more than once in the "${name}" entry` };
    if (member !== undefined && isDeepStrictEqual(member.value.value, value)) continue;
    changed = true;
    const oneLine = (from: number, to: number): boolean => !current.slice(from, to).includes('\n');
    if (member !== undefined) {
      const { start, end } = member.value;
      if (comments.some((c) => c.start < end && c.end > start)) {
        return { ok: false, reason: `the "${key}" value of the existing "${name}" entry contains comments that replacing it would lose` };
      }
      const rendered = oneLine(start, end) ? renderInline(value) : render(value, unit, lineIndentAt(current, member.keyStart), eolOf(current));
      current = current.slice(0, start) + rendered + current.slice(end);
    } else if (oneLine(entry.start, entry.end)) {
      // A one-line entry stays on one line: the new key goes right after the last value.
      const last = entry.members?.[entry.members.length - 1];
      const at = last === undefined ? entry.start + 1 : last.value.end;
      const member = `${last === undefined ? ' ' : ', '}${JSON.stringify(key)}: ${renderInline(value)}${last === undefined ? ' ' : ''}`;
      current = current.slice(0, at) + member + current.slice(at);
    } else {
      current = insertMember(current, entry, key, value, unit);
    }
  }
  return changed ? { ok: true, action: 'updated', text: current } : { ok: true, action: 'unchanged', text };
}

/** Adds `"key": value` as the last member of an object node, after any trailing comments. */
function insertMember(text: string, node: JsonNode, key: string, value: unknown, unit: string): string {
  const members = node.members ?? [];
  const close = node.end - 1;
  const first = members[0];
  const memberIndent =
    first !== undefined && text.slice(text.lastIndexOf('\n', first.keyStart - 1) + 1, first.keyStart).trim() === ''
      ? lineIndentAt(text, first.keyStart)
      : lineIndentAt(text, node.start) + unit;
  let at = close;
  while (at > node.start + 1 && /\s/.test(text[at - 1]!)) at--;
  const eol = eolOf(text);
  const breakBeforeClose = text.slice(at, close).includes('\n') ? '' : `${eol}${lineIndentAt(text, node.start)}`;
  const member = `${eol}${memberIndent}${JSON.stringify(key)}: ${render(value, unit, memberIndent, eol)}${breakBeforeClose}`;
  let edited = text.slice(0, at) + member + text.slice(at);
  const last = members[members.length - 1];
  if (last !== undefined && !hasTrailingComma(text, last.value.end, close)) {
    edited = edited.slice(0, last.value.end) + ',' + edited.slice(last.value.end);
  }
  return edited;
}

/** True when a comma follows the last member (JSONC), looking past whitespace and comments. */
function hasTrailingComma(text: string, from: number, close: number): boolean {
  let i = from;
  while (i < close) {
    const ch = text[i]!;
    if (ch === ',') return true;
    if (text.startsWith('//', i)) i = text.indexOf('\n', i) === -1 ? close : text.indexOf('\n', i);
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i) + 2;
    else i++;
  }
  return false;
}
