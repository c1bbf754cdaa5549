// Changes one mode in the text of a mode file while keeping the file's own format: YAML through
// the format-preserving editor (comments and the other modes untouched), JSON stays JSON. Pure text.
import { readModeFileText } from '../modes/mode-file.js';
import type { ModeConfig } from '../modes/types.js';
import { editSequence, YamlEditError, type SequenceEdit } from '../yaml/edit.js';
import { toPlain, toYaml, type Plain } from '../yaml/write.js';
import { isRecord } from '../rpc/jsonrpc.js';

export type ModeFileFormat = 'yaml' | 'json';

export interface ModeFileEdit {
  text: string;
  format: ModeFileFormat;
  /** False when the YAML layout could not be edited in place and the file was rewritten whole. */
  preserved: boolean;
  action: 'created' | 'replaced' | 'removed';
}

const KEY = 'customModes';

/** A mode as a file holds it, keys in Roo's order; `extra` adds export-only keys (source, rulesFiles). */
export function modeToPlain(mode: ModeConfig, extra: { source?: string; rulesFiles?: { relativePath: string; content: string }[] } = {}): { [key: string]: Plain } {
  const out: { [key: string]: Plain } = { slug: mode.slug, name: mode.name };
  if (mode.iconName !== undefined) out.iconName = mode.iconName;
  out.roleDefinition = mode.roleDefinition;
  if (mode.whenToUse !== undefined) out.whenToUse = mode.whenToUse;
  if (mode.description !== undefined) out.description = mode.description;
  if (mode.customInstructions !== undefined) out.customInstructions = mode.customInstructions;
  out.groups = toPlain(mode.groups);
  if (mode.allowedMcpServers !== undefined) out.allowedMcpServers = [...mode.allowedMcpServers];
  if (extra.source !== undefined) out.source = extra.source;
  if (extra.rulesFiles !== undefined && extra.rulesFiles.length > 0) out.rulesFiles = extra.rulesFiles.map((r) => ({ relativePath: r.relativePath, content: r.content }));
  return out;
}

/** JSON when the text is a JSON object (Roo's older .roomodes); YAML otherwise. */
export function formatOf(text: string): ModeFileFormat {
  const body = text.replace(/^\ufeff/, '').trimStart();
  if (!body.startsWith('{')) return 'yaml';
  try { JSON.parse(body); return 'json'; } catch { return 'yaml'; }
}

/** The customModes entries of a file's text ([] when it has none); throws on text that does not parse. */
export function modeEntries(text: string): unknown[] {
  const value = readModeFileText(text, { jsonFallback: true }).value;
  return isRecord(value) && Array.isArray(value[KEY]) ? value[KEY] : [];
}

const slugAt = (entries: readonly unknown[], slug: string): number => entries.findIndex((e) => isRecord(e) && e.slug === slug);

function editJson(text: string, edit: SequenceEdit): string {
  const bom = text.startsWith('\ufeff') ? '\ufeff' : '';
  const body = bom ? text.slice(1) : text;
  const doc = JSON.parse(body) as Record<string, unknown>;
  const list = Array.isArray(doc[KEY]) ? [...(doc[KEY] as unknown[])] : [];
  if (edit.op === 'replace') list[edit.index] = edit.value;
  else if (edit.op === 'remove') list.splice(edit.index, 1);
  else list.push(edit.value);
  doc[KEY] = list;
  const indent = /\n([ \t]+)"/.exec(body)?.[1] ?? '  ';
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const json = JSON.stringify(doc, null, indent).replace(/\n/g, eol);
  return `${bom}${json}${/\n\s*$/.test(body) ? eol : ''}`;
}

function apply(text: string, edit: SequenceEdit): { text: string; format: ModeFileFormat; preserved: boolean } {
  if (text.trim() !== '' && formatOf(text) === 'json') return { text: editJson(text, edit), format: 'json', preserved: true };
  const parse = (t: string): unknown => readModeFileText(t, { jsonFallback: false }).value;
  try {
    return { text: editSequence(text, KEY, edit, { parse }), format: 'yaml', preserved: true };
  } catch (err) {
    if (!(err instanceof YamlEditError)) throw err;
    // An unusual layout: the document is written out whole, the change made; comments are lost.
    const doc = parse(text);
    const value = isRecord(doc) ? { ...doc } : {};
    const list = Array.isArray(value[KEY]) ? [...(value[KEY] as unknown[])] : [];
    if (edit.op === 'replace') list[edit.index] = edit.value;
    else if (edit.op === 'remove') list.splice(edit.index, 1);
    else list.push(edit.value);
    value[KEY] = list;
    return { text: toYaml(toPlain(value)), format: 'yaml', preserved: false };
  }
}

/** Puts `mode` into the file's text: replaces the entry of its slug in place, or appends it. */
export function upsertModeText(text: string | null, mode: { [key: string]: Plain }): ModeFileEdit {
  const slug = mode.slug as string;
  if (text === null) return { text: toYaml({ [KEY]: [mode] }), format: 'yaml', preserved: true, action: 'created' };
  const index = slugAt(modeEntries(text), slug);
  const out = apply(text, index >= 0 ? { op: 'replace', index, value: mode } : { op: 'append', value: mode });
  return { ...out, action: index >= 0 ? 'replaced' : 'created' };
}

/** Takes every entry of `slug` out of the file's text; null when the file has none. */
export function removeModeText(text: string, slug: string): ModeFileEdit | null {
  let current = text;
  let preserved = true;
  let format: ModeFileFormat | null = null;
  for (let index = slugAt(modeEntries(current), slug); index >= 0; index = slugAt(modeEntries(current), slug)) {
    const out = apply(current, { op: 'remove', index });
    preserved &&= out.preserved;
    format = out.format;
    current = out.text;
  }
  return format === null ? null : { text: current, format, preserved, action: 'removed' };
}
