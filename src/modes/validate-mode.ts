// Roo's rules for mode entries and mode documents ({customModes: [...]}), applied one entry at a
// time so a bad mode is reported and skipped while the rest load. Never reads files or throws.
import { TOOL_GROUP_NAMES, type GroupEntry, type GroupName, type GroupOptions, type ModeConfig, type ModeIssue } from './types.js';
import { isGroupName } from './tool-groups.js';
import { fileRegexProblem } from './regex-safety.js';
import { isRecord } from '../rpc/jsonrpc.js';

export const SLUG_PATTERN = /^[a-zA-Z0-9-]+$/;

export type Positions = WeakMap<object, { line: number; column: number }>;

/**
 * Every key a mode entry may carry in some living dialect: Roo 3.52, its export format
 * (`rulesFiles`), Zoo Code (`allowedMcpServers`) and Kilo Code (`iconName`). Anything else is
 * ignored, as Roo's loader drops it, and reported once per file.
 */
export const KNOWN_MODE_KEYS: ReadonlySet<string> = new Set([
  'slug', 'name', 'roleDefinition', 'whenToUse', 'description', 'customInstructions', 'groups', 'source',
  'rulesFiles', 'allowedMcpServers', 'iconName',
]);

/** The `source` values a file may declare (Kilo adds organization); any other is ignored, as today. */
const DECLARED_SOURCES = ['global', 'project', 'organization'] as const;

export type EntryResult =
  | { ok: true; mode: ModeConfig; unknownKeys: string[]; misplaced?: { key: 'fileRegex'; value: string } }
  | { ok: false; slug?: string; problems: string[] };

/** A valid mode of a document, with where its entry starts. */
export interface PlacedModeConfig { mode: ModeConfig; line?: number; column?: number }

export interface DocumentResult {
  modes: PlacedModeConfig[];
  /** Modes skipped, duplicate slugs: things the author must fix. */
  issues: ModeIssue[];
  /** Not errors: the document simply holds no modes (no customModes list, a scalar root…). */
  notices: ModeIssue[];
  /** Loaded anyway, but worth a look: keys no dialect knows (one entry per file). */
  warnings: ModeIssue[];
}

const show = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

function checkOptions(group: GroupName, raw: unknown, at: string, problems: string[]): GroupOptions | null {
  if (!isRecord(raw)) {
    problems.push(`${at}[1]: the options of a group must be a mapping ({fileRegex?, description?}), got ${show(raw)}`);
    return null;
  }
  const out: GroupOptions = {};
  const before = problems.length;
  if (raw.fileRegex !== undefined) {
    if (typeof raw.fileRegex !== 'string') problems.push(`${at}[1].fileRegex: must be a string, got ${show(raw.fileRegex)}`);
    else {
      const problem = fileRegexProblem(raw.fileRegex);
      if (problem) problems.push(`${at}[1]: ${problem}`);
      else out.fileRegex = raw.fileRegex;
    }
  }
  if (raw.description !== undefined) {
    if (typeof raw.description !== 'string') problems.push(`${at}[1].description: must be a string, got ${show(raw.description)}`);
    else out.description = raw.description;
  }
  if (raw.tools !== undefined) {
    if (group !== 'mcp') problems.push(`${at}[1].tools: a tool allow-list is only meaningful on the mcp group, not on ${group}`);
    else if (!Array.isArray(raw.tools) || !raw.tools.every((t) => typeof t === 'string' && t.length > 0)) {
      problems.push(`${at}[1].tools: must be a list of MCP tool names or patterns (mcp__server__tool, * wildcards)`);
    } else out.tools = [...(raw.tools as string[])];
  }
  return problems.length === before ? out : null;
}

function checkGroups(raw: unknown, problems: string[]): GroupEntry[] {
  if (!Array.isArray(raw)) {
    problems.push(raw === undefined ? 'groups: required (a list of tool groups, possibly empty)' : `groups: must be a list, got ${show(raw)}`);
    return [];
  }
  const known = TOOL_GROUP_NAMES.join(', ');
  const seen = new Set<GroupName>();
  const out: GroupEntry[] = [];
  raw.forEach((entry: unknown, i) => {
    const at = `groups[${i}]`;
    const name: unknown = Array.isArray(entry) ? entry[0] : entry;
    if (!isGroupName(name)) {
      problems.push(`${at}: unknown tool group ${show(name)} (known groups: ${known})`);
      return;
    }
    if (seen.has(name)) {
      problems.push(`${at}: the group "${name}" is listed twice`);
      return;
    }
    seen.add(name);
    if (!Array.isArray(entry)) {
      out.push(name);
      return;
    }
    if (entry.length !== 2) {
      problems.push(`${at}: a group with options must be exactly [name, {options}], got ${entry.length} element(s)`);
      return;
    }
    const options = checkOptions(name, entry[1], at, problems);
    if (options) out.push([name, options]);
  });
  return out;
}

function requiredText(raw: Record<string, unknown>, key: 'name' | 'roleDefinition', problems: string[]): string {
  const v = raw[key];
  if (typeof v === 'string' && v.length > 0) return v;
  problems.push(v === undefined ? `${key}: required` : `${key}: must be a non-empty string, got ${show(v)}`);
  return '';
}

/** Checks one entry of customModes; extra keys are ignored, as Roo's loader ignores them. */
export function validateModeEntry(entry: unknown): EntryResult {
  if (!isRecord(entry)) return { ok: false, problems: [`a mode must be a mapping, got ${show(entry)}`] };
  const problems: string[] = [];
  const slug = entry.slug;
  if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) {
    problems.push(slug === undefined ? 'slug: required' : `slug: ${show(slug)} must be letters, digits and dashes only`);
  }
  const name = requiredText(entry, 'name', problems);
  const roleDefinition = requiredText(entry, 'roleDefinition', problems);
  const optional: Partial<Pick<ModeConfig, 'whenToUse' | 'description' | 'customInstructions'>> = {};
  for (const key of ['whenToUse', 'description', 'customInstructions'] as const) {
    const v = entry[key];
    if (v === undefined) continue;
    if (typeof v === 'string') optional[key] = v;
    else problems.push(`${key}: must be a string when present, got ${show(v)}`);
  }
  const groups = checkGroups(entry.groups, problems);
  const dialect: Pick<ModeConfig, 'allowedMcpServers' | 'iconName' | 'declaredSource'> = {};
  const servers = entry.allowedMcpServers;
  if (servers !== undefined) {
    if (Array.isArray(servers) && servers.every((x) => typeof x === 'string' && x.length > 0)) dialect.allowedMcpServers = [...(servers as string[])];
    else problems.push(`allowedMcpServers: must be a list of MCP server names, got ${show(servers)}`);
  }
  if (entry.iconName !== undefined) {
    if (typeof entry.iconName === 'string') dialect.iconName = entry.iconName;
    else problems.push(`iconName: must be a string when present, got ${show(entry.iconName)}`);
  }
  const declared = DECLARED_SOURCES.find((s) => s === entry.source);
  if (declared !== undefined) dialect.declaredSource = declared;
  const shownSlug = typeof slug === 'string' && slug.length > 0 ? slug : undefined;
  if (problems.length > 0) return shownSlug === undefined ? { ok: false, problems } : { ok: false, slug: shownSlug, problems };
  // A fileRegex beside the groups restricts nothing (Roo reads it only inside a group): reported on its own.
  const misplaced = typeof entry.fileRegex === 'string' ? { key: 'fileRegex' as const, value: entry.fileRegex } : undefined;
  const unknownKeys = Object.keys(entry).filter((k) => !KNOWN_MODE_KEYS.has(k) && !(misplaced && k === misplaced.key));
  const mode: ModeConfig = { slug: slug as string, name, roleDefinition, ...optional, groups, ...dialect };
  return misplaced ? { ok: true, mode, unknownKeys, misplaced } : { ok: true, mode, unknownKeys };
}

/** Where a key is written in the file: searched from its entry's start up to the next entry's. */
export type KeyLocator = (key: string, from: { line?: number; column?: number }, until: { line?: number }) => { line: number; column: number } | undefined;

export interface DocumentOptions {
  locateKey?: KeyLocator;
  /** How hints spell a group: as the file is written (JSON or YAML). */
  style?: 'yaml' | 'json';
}

/** What a mode-level fileRegex means for the mode, and the group entry that says what was meant. */
function misplacedFileRegex(mode: ModeConfig, value: string, style: 'yaml' | 'json'): string {
  const edit = mode.groups.find((g) => (typeof g === 'string' ? g : g[0]) === 'edit');
  const own = edit !== undefined && typeof edit !== 'string' ? edit[1].fileRegex : undefined;
  const effect = edit === undefined ? 'the mode has no edit group, so it restricts nothing'
    : own !== undefined ? `the edit group's own fileRegex ${JSON.stringify(own)} applies`
      : 'the mode\'s edit group is unrestricted';
  const entry = style === 'json'
    ? `["edit", {"fileRegex": ${JSON.stringify(value)}}]`
    : `- [edit, {fileRegex: '${value.replace(/'/g, "''")}'}]`;
  return `mode "${mode.slug}": fileRegex at the mode level is ignored (Roo reads it only inside a group), so ${effect}; `
    + `it belongs in groups, as the edit group's option: ${entry}`;
}

/** Validates a whole parsed mode document; each mode stands or falls on its own. */
export function validateModeDocument(value: unknown, file: string, positions?: Positions, options: DocumentOptions = {}): DocumentResult {
  const result: DocumentResult = { modes: [], issues: [], notices: [], warnings: [] };
  const where = (node: unknown): { line?: number; column?: number } => {
    const p = typeof node === 'object' && node !== null ? positions?.get(node) : undefined;
    return p ? { line: p.line, column: p.column } : {};
  };
  if (!isRecord(value)) {
    result.notices.push({ file, ...where(value), message: 'the file is not a mapping with a customModes list; it defines no modes' });
    return result;
  }
  const list = value.customModes;
  if (!Array.isArray(list)) {
    const message = list === undefined || list === null
      ? 'the file has no customModes list; it defines no modes'
      : 'customModes is not a list; the file defines no modes';
    result.notices.push({ file, ...where(value), message });
    return result;
  }
  const taken = new Map<string, number | undefined>();
  const unknown = new Map<string, string[]>();
  let firstUnknown: { line?: number; column?: number } | undefined;
  const keyAt = (key: string, i: number, at: { line?: number; column?: number }): { line?: number; column?: number } => {
    const next = list[i + 1];
    return options.locateKey?.(key, at, isRecord(next) ? where(next) : {}) ?? at;
  };
  list.forEach((entry: unknown, i) => {
    const at = isRecord(entry) ? where(entry) : where(list);
    const checked = validateModeEntry(entry);
    if (!checked.ok) {
      const label = checked.slug !== undefined ? `mode "${checked.slug}"` : `customModes[${i}]`;
      result.issues.push({
        file, ...at, ...(checked.slug !== undefined ? { slug: checked.slug } : {}),
        message: `${label} was skipped: ${checked.problems.join('; ')}`,
      });
      return;
    }
    const slug = checked.mode.slug;
    if (taken.has(slug)) {
      const first = taken.get(slug);
      result.issues.push({
        file, ...at, slug,
        message: `mode "${slug}" is defined again${first !== undefined ? ` (first at line ${first})` : ''}; the first definition is kept`,
      });
      return;
    }
    taken.set(slug, at.line);
    if (checked.unknownKeys.length > 0 && firstUnknown === undefined) firstUnknown = keyAt(checked.unknownKeys[0]!, i, at);
    for (const key of checked.unknownKeys) unknown.set(key, [...(unknown.get(key) ?? []), slug]);
    if (checked.misplaced) {
      // The mode loads as Roo loads it, but without the restriction its author meant: a problem to fix.
      result.issues.push({ file, ...keyAt(checked.misplaced.key, i, at), slug, message: misplacedFileRegex(checked.mode, checked.misplaced.value, options.style ?? 'yaml') });
    }
    result.modes.push({ mode: checked.mode, ...at });
  });
  if (unknown.size > 0) {
    const keys = [...unknown.keys()];
    const slugs = [...new Set([...unknown.values()].flat())];
    const shown = slugs.length > 5 ? `${slugs.slice(0, 5).join(', ')} and ${slugs.length - 5} more` : slugs.join(', ');
    result.warnings.push({
      file, ...(firstUnknown ?? where(value)),
      message: `ignored key${keys.length === 1 ? '' : 's'} no mode dialect knows, as Roo's loader ignores them: ${keys.slice(0, 20).join(', ')}${keys.length > 20 ? ', …' : ''} (in ${shown})`,
    });
  }
  return result;
}
