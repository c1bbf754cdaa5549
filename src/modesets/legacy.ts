// Reads the task orchestrator's older role files (role name → role_definition, expertise, approach,
// output_format; task_orchestrator.specialist_roles) as Roo modes. It only converts data in memory;
// it never reads or writes files, and never changes a document that is not in that format.
import { isRecord } from '../rpc/jsonrpc.js';

/** A role converted to a mode, with the role object it came from (for line numbers). */
export interface LegacyRole {
  key: string;
  mode: Record<string, unknown>;
  source: object;
}


/** Top-level keys of a mode set that are not roles even in a legacy file. */
const SET_KEYS = new Set(['description', 'settings', 'required_roles', 'template', 'customModes']);

/** Keys that carry a role's own tool groups ("unless stated": otherwise roles are read-only). */
const GROUP_KEYS = ['groups', 'tool_groups'] as const;

const isRole = (v: unknown): v is Record<string, unknown> => isRecord(v) && typeof v.role_definition === 'string';

/** True for a mapping without `customModes` that holds at least one role object or specialist list. */
export function isLegacyRoles(value: unknown): boolean {
  if (!isRecord(value) || 'customModes' in value) return false;
  const orchestrator = value.task_orchestrator;
  if (isRecord(orchestrator) && isRecord(orchestrator.specialist_roles)) return true;
  return Object.entries(value).some(([k, v]) => !SET_KEYS.has(k) && isRole(v));
}

/** A Roo-valid slug from a role key: `task_orchestrator` → `task-orchestrator`. */
export function slugFromKey(key: string): string {
  return key.trim().replace(/[^A-Za-z0-9-]+/g, '-').replace(/-{2,}/g, '-').replace(/^-|-$/g, '');
}

/** A display name from a key or slug: `task_orchestrator` → `Task Orchestrator`. */
export function nameFromKey(key: string): string {
  return key.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);

function instructions(role: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  const expertise = strings(role.expertise);
  const approach = strings(role.approach);
  if (expertise.length) parts.push(['Expertise:', ...expertise.map((e) => `- ${e}`)].join('\n'));
  if (approach.length) parts.push(['Approach:', ...approach.map((a) => `- ${a}`)].join('\n'));
  if (typeof role.output_format === 'string' && role.output_format.trim()) parts.push(`Output format:\n${role.output_format.trim()}`);
  return parts.length ? parts.join('\n\n') : undefined;
}

/** Tool groups as stated by the role (`file_regex` spelled the Python way is accepted), else read. */
function groupsOf(role: Record<string, unknown>): unknown[] {
  for (const key of GROUP_KEYS) {
    const stated = role[key];
    if (!Array.isArray(stated)) continue;
    return stated.map((g) => {
      if (!Array.isArray(g) || !isRecord(g[1])) return g;
      const { file_regex: fileRegexPy, fileRegex, description } = g[1];
      const opts: Record<string, unknown> = {};
      const regex = fileRegex ?? fileRegexPy;
      if (regex !== undefined) opts.fileRegex = regex;
      if (description !== undefined) opts.description = description;
      return [g[0], opts];
    });
  }
  return ['read'];
}

/** Every role of a legacy document as a mode, in file order. */
export function legacyRoles(value: unknown): LegacyRole[] {
  if (!isRecord(value)) return [];
  const orchestrator = value.task_orchestrator;
  const listed = isRecord(orchestrator) && isRecord(orchestrator.specialist_roles) ? orchestrator.specialist_roles : {};
  const out: LegacyRole[] = [];
  for (const [key, role] of Object.entries(value)) {
    if (SET_KEYS.has(key) || !isRole(role)) continue;
    const about = typeof role.description === 'string' ? role.description : typeof listed[key] === 'string' ? listed[key] : undefined;
    const mode: Record<string, unknown> = {
      slug: slugFromKey(key),
      name: typeof role.display_name === 'string' && role.display_name.trim() ? role.display_name : nameFromKey(key),
      roleDefinition: role.role_definition,
    };
    if (about !== undefined) { mode.description = about; mode.whenToUse = about; }
    const custom = instructions(role);
    if (custom !== undefined) mode.customInstructions = custom;
    mode.groups = groupsOf(role);
    out.push({ key, mode, source: role });
  }
  return out;
}

/** Specialist names listed under task_orchestrator.specialist_roles that have no role object. */
export function undefinedSpecialists(value: unknown): string[] {
  if (!isRecord(value) || !isRecord(value.task_orchestrator)) return [];
  const listed = value.task_orchestrator.specialist_roles;
  return isRecord(listed) ? Object.keys(listed).filter((k) => !isRole(value[k])) : [];
}

/**
 * The registry's `convertDocument` hook: a legacy document becomes `{customModes: [...]}` (its
 * description, settings and required_roles kept); any other value is returned unchanged.
 */
export function convertLegacyRoles(value: unknown, _file: string): unknown {
  if (!isLegacyRoles(value) || !isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of ['description', 'settings', 'required_roles'] as const) if (key in value) out[key] = value[key];
  out.customModes = legacyRoles(value).map((r) => r.mode);
  return out;
}
