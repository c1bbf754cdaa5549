// Builds a new mode set from a template plus extra roles (orchestrator_mode_create). Pure: it gets
// the template text and the arguments and returns the new document's text, or throws -32004; the
// caller writes the file.
import { validateModeEntry } from '../modes/validate-mode.js';
import { ValidationError } from '../rpc/errors.js';
import { slugFromKey } from './legacy.js';
import { analyseSet } from './sets.js';
import { toPlain, toYaml } from '../yaml/write.js';
import { isRecord } from '../rpc/jsonrpc.js';

export interface CustomRoleArg { role_name: string; prompt: string; description?: string; groups?: unknown[] }

export interface BuiltSet {
  text: string;
  templateSlugs: string[];
  customSlugs: string[];
  replaced: string[];
  settings: Record<string, unknown>;
  skippedTemplateModes: number;
}


function badArgument(path: string, issue: string): ValidationError {
  return new ValidationError(`Invalid ${path}: ${issue}`, {
    message: `${path}: ${issue}`, error_type: 'invalid_argument', argument: path, issue,
    recovery_suggestions: ['Fix the argument and call orchestrator_mode_create again'],
  });
}

/** The slug a custom role gets from its role_name: "Data Analyst" → "data-analyst". */
export const roleSlug = (roleName: string): string => slugFromKey(roleName).toLowerCase();

/** Narrows the custom_roles argument (already schema-checked) to typed records. */
export function customRolesArg(raw: unknown): CustomRoleArg[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw badArgument('custom_roles', 'must be a list');
  return raw.map((r: unknown, i) => {
    if (!isRecord(r) || typeof r.role_name !== 'string' || typeof r.prompt !== 'string') throw badArgument(`custom_roles[${i}]`, 'needs role_name and prompt');
    const out: CustomRoleArg = { role_name: r.role_name, prompt: r.prompt };
    if (typeof r.description === 'string') out.description = r.description;
    if (Array.isArray(r.groups)) out.groups = r.groups as unknown[];
    return out;
  });
}

export function buildSet(o: {
  modeName: string; templateName: string; templateText: string; customRoles: CustomRoleArg[]; settings: Record<string, unknown>;
}): BuiltSet {
  const t = analyseSet(o.templateText, o.templateName);
  if (!t.flags.yaml_syntax_valid || t.format === 'unknown') {
    throw new ValidationError(`Template ${o.templateName} cannot be read: ${t.errors[0]?.message ?? 'not a mode set'}`, {
      message: `Template ${o.templateName} is not a readable mode set`, error_type: 'invalid_template', file: o.templateName,
      ...(t.errors[0]?.line !== undefined ? { line: t.errors[0].line } : {}), issue: t.errors[0]?.message ?? 'not a mode set',
      recovery_suggestions: ['Use template_source "default_roles.yaml"', `Fix ${o.templateName} in the template folder`],
    });
  }
  const modes: Record<string, unknown>[] = t.modes.map((m) => ({ ...m }));
  const templateSlugs = modes.map((m) => m.slug as string);
  const customSlugs: string[] = [];
  const replaced: string[] = [];
  o.customRoles.forEach((r, i) => {
    const slug = roleSlug(r.role_name);
    if (!slug) throw badArgument(`custom_roles[${i}].role_name`, 'must contain letters or digits');
    if (customSlugs.includes(slug)) throw badArgument(`custom_roles[${i}].role_name`, `gives the slug "${slug}" twice`);
    const mode: Record<string, unknown> = { slug, name: r.role_name.trim(), roleDefinition: r.prompt };
    if (r.description !== undefined) { mode.description = r.description; mode.whenToUse = r.description; }
    mode.groups = r.groups ?? ['read'];
    const checked = validateModeEntry(mode);
    if (!checked.ok) throw badArgument(`custom_roles[${i}]`, checked.problems.join('; '));
    const at = modes.findIndex((m) => m.slug === slug);
    if (at >= 0) { modes[at] = mode; replaced.push(slug); } else modes.push(mode);
    customSlugs.push(slug);
  });
  const settings = { ...t.settings, ...o.settings };
  const doc: Record<string, unknown> = {
    description: `Mode set "${o.modeName}" created from ${o.templateName}${customSlugs.length ? ` with ${customSlugs.length} custom role(s)` : ''}`,
    template: o.templateName,
    settings,
  };
  if (t.requiredRoles.length) doc.required_roles = t.requiredRoles;
  doc.customModes = modes;
  const text = toYaml(toPlain(doc), [`Mode set "${o.modeName}", created by orchestrator_mode_create from ${o.templateName}.`]);
  return {
    text, templateSlugs: templateSlugs.filter((s) => !replaced.includes(s)), customSlugs, replaced, settings,
    skippedTemplateModes: t.errors.length ? t.slugs.length - t.modes.length : 0,
  };
}
