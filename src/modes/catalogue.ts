// The modes in force as an immutable snapshot, and how one is built: which files are the sources,
// how each is read and validated, and how layers merge by slug. Holds no state between loads.
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Mode, ModeIssue, ModeSource } from './types.js';
import { builtinModes } from './builtin.js';
import { compileMode, type CompiledMode } from './permissions.js';
import { validateModeDocument } from './validate-mode.js';
import { readPointerFile } from './pointer.js';
import { readFileSafely, UnsafeFileError } from '../files/safe-read.js';
import type { YamlDocument } from '../yaml/read.js';

/** Mode files larger than this are refused unread (the largest real one seen is under 3 MiB). */
export const MAX_MODE_FILE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MODESETS_DIR = '.task_orchestrator';
const ACTIVE_POINTER = 'active_mode_set';
const ROLES_DIR = 'roles';

export interface ModeSourcesConfig {
  projectRoot: string | null;
  configDir: string;
  globalModesFile: string | null;
  /** Relative to the project root; default `.task_orchestrator`. */
  modesetsDir?: string;
  /** Where else a global modes file may be (editors' storage, src/modes/editor-storage.ts), tried in order when the config dir has none. */
  editorModesFiles?: readonly string[];
  /** Turns a parsed document into `{customModes: [...]}` before validation (legacy role files). */
  convertDocument?: (value: unknown, file: string) => unknown;
}

/** An immutable view of the modes in force. */
export class Catalogue {
  readonly modes: readonly CompiledMode[];
  /** Problems to fix: broken files, skipped modes, duplicate slugs. */
  readonly issues: readonly ModeIssue[];
  /** Informational: files that hold no modes, a mode-set pointer that was not followed. */
  readonly notices: readonly ModeIssue[];
  /** The files that were read (absolute paths), whether or not they held valid modes. */
  readonly files: readonly string[];
  /** The global modes file in use (read or not), null when none was configured or found. */
  readonly globalFile: string | null;
  readonly #bySlug: ReadonlyMap<string, CompiledMode>;

  constructor(parts: { modes: CompiledMode[]; issues?: ModeIssue[]; notices?: ModeIssue[]; files?: string[]; globalFile?: string | null }) {
    this.globalFile = parts.globalFile ?? null;
    this.modes = Object.freeze([...parts.modes]);
    this.issues = Object.freeze([...(parts.issues ?? [])]);
    this.notices = Object.freeze([...(parts.notices ?? [])]);
    this.files = Object.freeze([...(parts.files ?? [])]);
    this.#bySlug = new Map(this.modes.map((m) => [m.slug, m]));
  }

  get(slug: string): CompiledMode | undefined { return this.#bySlug.get(slug); }
  slugs(): string[] { return this.modes.map((m) => m.slug); }
}

/**
 * Precedence by slug is project > global > built-in. A custom mode with a built-in slug takes the
 * built-in's place; new slugs follow the built-ins, project ones first, each in file order.
 */
export function mergeModes(builtins: readonly Mode[], global: readonly Mode[], project: readonly Mode[]): Mode[] {
  const projectSlugs = new Set(project.map((m) => m.slug));
  const custom = [...project, ...global.filter((m) => !projectSlugs.has(m.slug))];
  const bySlug = new Map(custom.map((m) => [m.slug, m]));
  const builtinSlugs = new Set(builtins.map((m) => m.slug));
  return [...builtins.map((b) => bySlug.get(b.slug) ?? b), ...custom.filter((m) => !builtinSlugs.has(m.slug))];
}

const fingerprint = (m: Mode): string => JSON.stringify([
  m.name, m.roleDefinition, m.whenToUse, m.description, m.customInstructions, m.groups, m.source, m.file,
]);

/** Slugs added, removed or changed (a line shift alone is no change); listChanged when the slug sequence differs. */
export function diffCatalogues(before: Catalogue, after: Catalogue): { changedSlugs: string[]; listChanged: boolean } {
  const changed: string[] = [];
  for (const m of after.modes) {
    const old = before.get(m.slug);
    if (!old || fingerprint(old) !== fingerprint(m)) changed.push(m.slug);
  }
  for (const m of before.modes) if (!after.get(m.slug)) changed.push(m.slug);
  const listChanged = before.slugs().join('\n') !== after.slugs().join('\n');
  return { changedSlugs: changed, listChanged };
}

const errCode = (err: unknown): string | undefined =>
  err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;

async function isFile(path: string): Promise<boolean> {
  try { return (await stat(path)).isFile(); } catch { return false; }
}

/** Mode-set file types (the same list the mode-set tools accept). */
const SET_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;

/** True when the file's real location (links followed) is inside the project's real location. */
async function staysInside(file: string, root: string): Promise<boolean> {
  try {
    const [realFile, realRoot] = await Promise.all([realpath(file), realpath(root)]);
    const rel = relative(realRoot, realFile);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  } catch {
    return false;
  }
}

/** A path is a plain file name in roles/: no separators, no dot names, no control characters. */
function safeName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\\\u0000-\u001f\u007f]/.test(name);
}

export interface ModeFiles {
  global: string | null;
  project: { file: string; kind: 'modeset' | 'roomodes' } | null;
  notices: ModeIssue[];
}

/** Which files feed the catalogue: the global file, and the active mode set or else .roomodes. */
export async function resolveModeFiles(config: ModeSourcesConfig): Promise<ModeFiles> {
  const notices: ModeIssue[] = [];
  let global: string | null = null;
  if (config.globalModesFile !== null) global = resolve(config.globalModesFile);
  else {
    for (const name of ['modes.yaml', 'custom_modes.yaml']) {
      const candidate = resolve(config.configDir, name);
      if (await isFile(candidate)) { global = candidate; break; }
    }
    for (const candidate of global === null ? config.editorModesFiles ?? [] : []) {
      if (await isFile(candidate)) { global = resolve(candidate); break; }
    }
  }
  if (config.projectRoot === null) return { global, project: null, notices };
  const root = resolve(config.projectRoot);
  const setsDir = resolve(root, config.modesetsDir ?? DEFAULT_MODESETS_DIR);
  const pointer = join(setsDir, ACTIVE_POINTER);
  let name: string | null = null;
  try {
    name = (await readPointerFile(pointer))?.trim() ?? null;
  } catch (err) {
    // The pointer's content is never quoted: a link or a wrong file could hold anything.
    const why = err instanceof UnsafeFileError ? err.problem : `cannot be read (${errCode(err) ?? String(err)})`;
    notices.push({ file: pointer, line: 1, message: `the active mode set pointer ${why}; using .roomodes` });
  }
  if (name !== null) {
    const rolesDir = join(setsDir, ROLES_DIR);
    const target = safeName(name) && SET_EXTENSIONS.some((ext) => name!.endsWith(ext)) ? join(rolesDir, name) : null;
    const problem = target === null
      ? 'the active mode set pointer must hold a plain .yaml, .yml or .json file name (its content is not shown)'
      : !(await isFile(target)) ? `the active mode set "${name}" is not a file in ${rolesDir}`
        : !(await staysInside(target, root)) ? `the active mode set "${name}" leads outside the project through a symbolic link`
          : null;
    if (problem === null && target !== null) return { global, project: { file: target, kind: 'modeset' }, notices };
    notices.push({ file: pointer, line: 1, message: `${problem}; using .roomodes` });
  }
  return { global, project: { file: join(root, '.roomodes'), kind: 'roomodes' }, notices };
}

export interface LayerResult { modes: Mode[]; issues: ModeIssue[]; notices: ModeIssue[]; read: boolean }

/** Reads and validates one mode file. A missing file is simply absent; nothing here throws. */
export async function readModeLayer(
  file: string, source: Exclude<ModeSource, 'builtin'>, jsonFallback: boolean,
  convert?: (value: unknown, file: string) => unknown,
): Promise<LayerResult> {
  const out: LayerResult = { modes: [], issues: [], notices: [], read: false };
  let text: string;
  try {
    // Links are followed (a .roomodes linked from a shared checkout is common); only a regular file
    // within the size cap is read, and opening never blocks (a FIFO would hang the load for ever).
    text = (await readFileSafely(file, { maxBytes: MAX_MODE_FILE_BYTES, links: 'follow' })).text;
    out.read = true;
  } catch (err) {
    if (err instanceof UnsafeFileError && err.reason === 'missing') return out;
    const message = err instanceof UnsafeFileError
      ? (err.reason === 'not_regular' ? 'not a regular file' : err.reason === 'too_large' ? `the file ${err.problem}; mode files over ${MAX_MODE_FILE_BYTES} bytes are refused` : err.problem)
      : `cannot read the file (${errCode(err) ?? (err instanceof Error ? err.message : String(err))})`;
    out.issues.push({ file, line: 1, message });
    return out;
  }
  // The YAML reader loads only when a mode file exists: a server with none never pays for it.
  const [{ readModeFileText }, { YamlError }] = await Promise.all([import('./mode-file.js'), import('../yaml/read.js')]);
  let parsed: YamlDocument;
  try {
    parsed = readModeFileText(text, { jsonFallback });
  } catch (err) {
    if (err instanceof YamlError) out.issues.push({ file, line: err.line, column: err.column, message: `cannot parse the file: ${err.message}` });
    else out.issues.push({ file, line: 1, message: `cannot parse the file: ${err instanceof Error ? err.message : String(err)}` });
    return out;
  }
  let value = parsed.value;
  if (convert) {
    try {
      value = convert(value, file);
    } catch (err) {
      out.issues.push({ file, line: 1, message: `cannot convert the file: ${err instanceof Error ? err.message : String(err)}` });
      return out;
    }
  }
  let checked: ReturnType<typeof validateModeDocument>;
  try {
    checked = validateModeDocument(value, file, parsed.positions);
  } catch (err) {
    // One hostile file must never keep the other sources (or the server) from loading.
    out.issues.push({ file, line: 1, message: `cannot check the file: ${err instanceof Error ? err.message : String(err)}` });
    return out;
  }
  out.issues.push(...checked.issues);
  out.notices.push(...checked.notices);
  out.modes = checked.modes.map((p) => ({ ...p.mode, source, file, ...(p.line !== undefined ? { line: p.line } : {}) }));
  return out;
}

/** Reads every source and builds a fresh catalogue. */
export async function loadCatalogue(config: ModeSourcesConfig): Promise<Catalogue> {
  const files = await resolveModeFiles(config);
  const empty: LayerResult = { modes: [], issues: [], notices: [], read: false };
  const [global, project] = await Promise.all([
    files.global ? readModeLayer(files.global, 'global', false) : empty,
    files.project
      ? readModeLayer(files.project.file, 'project', true, files.project.kind === 'modeset' ? config.convertDocument : undefined)
      : empty,
  ]);
  const merged = mergeModes(builtinModes(), global.modes, project.modes);
  return new Catalogue({
    modes: merged.map((m) => Object.freeze(compileMode(m))),
    issues: [...global.issues, ...project.issues],
    notices: [...files.notices, ...global.notices, ...project.notices],
    files: [...(global.read && files.global ? [files.global] : []), ...(project.read && files.project ? [files.project.file] : [])],
    globalFile: files.global,
  });
}
