// Reads one mode-set text and judges it: syntax, format (Roo modes or legacy roles), each mode by
// Roo's rules, required roles, settings. Pure: it gets text and returns a report; it never touches
// files and never throws for bad content (only for bugs).
import { cleanRooText, readModeFileText } from '../modes/mode-file.js';
import { validateModeEntry } from '../modes/validate-mode.js';
import type { ModeConfig } from '../modes/types.js';
import { isLegacyRoles, legacyRoles, undefinedSpecialists } from './legacy.js';
import { isRecord } from '../rpc/jsonrpc.js';

export type SetFormat = 'modes' | 'legacy-roles' | 'unknown';

export interface SetIssue {
  message: string;
  line?: number;
  column?: number;
  slug?: string;
}

export interface SetFlags {
  yaml_syntax_valid: boolean;
  required_roles_present: boolean;
  role_definitions_complete: boolean;
  custom_roles_valid: boolean;
}

export interface SetAnalysis {
  file: string;
  format: SetFormat;
  /** The parsed document (undefined when the syntax is bad). */
  document: unknown;
  /** Valid modes, in file order (converted ones for a legacy file). */
  modes: ModeConfig[];
  /** Slugs of every entry that has a usable slug, valid or not. */
  slugs: string[];
  description?: string;
  settings: Record<string, unknown>;
  requiredRoles: string[];
  template?: string;
  flags: SetFlags;
  isValid: boolean;
  errors: SetIssue[];
  warnings: SetIssue[];
  /** What orchestrator_mode_validate with repair_if_possible would fix. */
  repairSuggestions: string[];
}

/** Top-level keys of a mode set, in one table. */
export const SET_TOP_KEYS = ['description', 'template', 'settings', 'required_roles', 'customModes'] as const;

/** Known settings and the JSON type each takes. */
export const SETTING_TYPES: Readonly<Record<string, readonly string[]>> = {
  default_complexity: ['string'],
  auto_task_routing: ['boolean'],
  task_distribution: ['string', 'object'],
};

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Lines holding characters Roo's cleaning would rewrite (invisible spaces, curly quotes, dashes). */
export function uncleanLines(text: string): number[] {
  const lines = text.split('\n');
  const out: number[] = [];
  lines.forEach((l, i) => { if (cleanRooText(l) !== l) out.push(i + 1); });
  return out;
}

/** Why a problem string from validateModeEntry matters: name/roleDefinition vs. the rest. */
const isDefinitionProblem = (p: string): boolean => /^(name|roleDefinition):/.test(p);

export function analyseSet(text: string, file: string): SetAnalysis {
  const a: SetAnalysis = {
    file, format: 'unknown', document: undefined, modes: [], slugs: [], settings: {}, requiredRoles: [],
    flags: { yaml_syntax_valid: false, required_roles_present: true, role_definitions_complete: true, custom_roles_valid: true },
    isValid: false, errors: [], warnings: [], repairSuggestions: [],
  };
  const dirty = uncleanLines(text.replace(/^\uFEFF/, ''));
  if (dirty.length > 0) {
    a.warnings.push({ line: dirty[0], message: `invisible or typographic characters (no-break spaces, zero-width characters, curly quotes, long dashes) on line(s) ${dirty.slice(0, 10).join(', ')}` });
    a.repairSuggestions.push('replace invisible and typographic characters with plain ones');
  }
  let parsed: ReturnType<typeof readModeFileText>;
  try {
    parsed = readModeFileText(text, { jsonFallback: true });
  } catch (err) {
    const e = err as { message?: unknown; line?: unknown; column?: unknown };
    const issue: SetIssue = { message: `YAML syntax error: ${typeof e.message === 'string' ? e.message : String(err)}` };
    if (typeof e.line === 'number') issue.line = e.line;
    if (typeof e.column === 'number') issue.column = e.column;
    a.errors.push(issue);
    a.flags.custom_roles_valid = false;
    a.flags.role_definitions_complete = false;
    a.flags.required_roles_present = false;
    return a;
  }
  a.flags.yaml_syntax_valid = true;
  const doc = parsed.value;
  a.document = doc;
  const where = (node: unknown): { line?: number; column?: number } => {
    const p = typeof node === 'object' && node !== null ? parsed.positions.get(node) : undefined;
    return p ? { line: p.line, column: p.column } : {};
  };
  if (!isRecord(doc)) {
    a.errors.push({ ...where(doc), message: `the top level must be a mapping with a customModes list, got ${typeOf(doc)}` });
    a.flags.custom_roles_valid = false;
    return finish(a);
  }
  let entries: { raw: unknown; node: unknown }[];
  if (isLegacyRoles(doc)) {
    a.format = 'legacy-roles';
    entries = legacyRoles(doc).map((r) => ({ raw: r.mode, node: r.source }));
    for (const name of undefinedSpecialists(doc)) {
      a.warnings.push({ ...where(doc.task_orchestrator), message: `specialist role "${name}" is listed in task_orchestrator.specialist_roles but not defined` });
    }
  } else {
    a.format = 'modes';
    const list = doc.customModes;
    if (!Array.isArray(list)) {
      a.errors.push({ ...where(doc), message: list === undefined ? 'customModes: required (a list of modes)' : `customModes: must be a list, got ${typeOf(list)}` });
      a.flags.custom_roles_valid = false;
      entries = [];
    } else {
      entries = list.map((raw: unknown) => ({ raw, node: isRecord(raw) ? raw : list }));
      if (list.length === 0) a.warnings.push({ ...where(list), message: 'customModes is empty: selecting this set leaves only global and built-in modes' });
    }
    for (const key of Object.keys(doc)) {
      if (!(SET_TOP_KEYS as readonly string[]).includes(key)) a.warnings.push({ ...where(doc), message: `unknown top-level key "${key}" is ignored` });
    }
  }
  checkEntries(a, entries, where);
  checkExtras(a, doc, where);
  return finish(a);
}

function checkEntries(a: SetAnalysis, entries: { raw: unknown; node: unknown }[], where: (n: unknown) => { line?: number; column?: number }): void {
  const seen = new Map<string, number | undefined>();
  entries.forEach(({ raw, node }, i) => {
    const at = where(node);
    const slug = isRecord(raw) && typeof raw.slug === 'string' ? raw.slug : undefined;
    const checked = validateModeEntry(raw);
    if (!checked.ok) {
      const label = slug ? `mode "${slug}"` : `customModes[${i}]`;
      for (const p of checked.problems) {
        a.errors.push({ ...at, ...(slug ? { slug } : {}), message: `${label}: ${p}` });
        if (isDefinitionProblem(p)) a.flags.role_definitions_complete = false;
      }
      a.flags.custom_roles_valid = false;
      suggestRepairs(a, raw, checked.problems, label);
      if (slug && /^[A-Za-z0-9-]+$/.test(slug)) a.slugs.push(slug);
      return;
    }
    const m = checked.mode;
    if (seen.has(m.slug)) {
      const first = seen.get(m.slug);
      a.errors.push({ ...at, slug: m.slug, message: `mode "${m.slug}" is defined twice${first !== undefined ? ` (first at line ${first})` : ''}` });
      a.flags.custom_roles_valid = false;
      a.repairSuggestions.push(`rename the second mode "${m.slug}" to a free slug`);
      return;
    }
    seen.set(m.slug, at.line);
    a.slugs.push(m.slug);
    a.modes.push(m);
  });
}

function suggestRepairs(a: SetAnalysis, raw: unknown, problems: string[], label: string): void {
  if (!isRecord(raw)) return;
  if (problems.some((p) => /^groups\[\d+\]: (unknown tool group|the group ".*" is listed twice)/.test(p))) {
    a.repairSuggestions.push(`${label}: drop unknown and repeated tool groups`);
  }
  if (problems.some((p) => p.startsWith('name:')) && typeof raw.slug === 'string' && raw.slug.trim()) {
    a.repairSuggestions.push(`${label}: derive the missing name from the slug`);
  }
  if (problems.some((p) => p.startsWith('slug:')) && (typeof raw.slug === 'string' || typeof raw.name === 'string')) {
    a.repairSuggestions.push(`${label}: make the slug valid (letters, digits and dashes)`);
  }
}

function checkExtras(a: SetAnalysis, doc: Record<string, unknown>, where: (n: unknown) => { line?: number; column?: number }): void {
  if (typeof doc.description === 'string') a.description = doc.description;
  else if (doc.description !== undefined) a.warnings.push({ ...where(doc), message: 'description should be a string' });
  if (typeof doc.template === 'string') a.template = doc.template;
  if (isRecord(doc.settings)) {
    a.settings = { ...doc.settings };
    for (const [k, v] of Object.entries(doc.settings)) {
      const types = SETTING_TYPES[k];
      if (!types) a.warnings.push({ ...where(doc.settings), message: `unknown setting "${k}"` });
      else if (!types.includes(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)) {
        a.warnings.push({ ...where(doc.settings), message: `setting "${k}" should be ${types.join(' or ')}, got ${typeOf(v)}` });
      }
    }
  } else if (doc.settings !== undefined) {
    a.warnings.push({ ...where(doc), message: `settings should be a mapping, got ${typeOf(doc.settings)}` });
  }
  const req = doc.required_roles;
  if (req === undefined) return;
  if (!Array.isArray(req) || !req.every((r) => typeof r === 'string')) {
    a.errors.push({ ...where(Array.isArray(req) ? req : doc), message: 'required_roles: must be a list of mode slugs' });
    a.flags.required_roles_present = false;
    return;
  }
  a.requiredRoles = req as string[];
  for (const slug of a.requiredRoles) {
    if (!a.modes.some((m) => m.slug === slug)) {
      a.errors.push({ ...where(req), slug, message: `missing required role "${slug}" (no valid mode has this slug)` });
      a.flags.required_roles_present = false;
    }
  }
}

function finish(a: SetAnalysis): SetAnalysis {
  a.repairSuggestions = [...new Set(a.repairSuggestions)];
  a.isValid = a.errors.length === 0 && Object.values(a.flags).every(Boolean);
  return a;
}
