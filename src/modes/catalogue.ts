// The modes in force as an immutable snapshot, and how one is built: which files are the sources,
// how each is read and validated, and how layers merge by slug. Holds no state between loads.
import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Mode, ModeIssue, ModeSource } from './types.js';
import { builtinModes } from './builtin.js';
import { compileMode, type CompiledMode } from './permissions.js';
import { validateModeDocument } from './validate-mode.js';
import { readPointerFile } from './pointer.js';
import { readFileSafely, UnsafeFileError } from '../files/safe-read.js';
import type { YamlDocument } from '../yaml/read.js';
import { isRecord } from '../rpc/jsonrpc.js';
import { formatOfText, keyLocator, slugsMentioned } from './problems.js';
import { MODE_SOURCES, type SourcePaths } from './sources.js';

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
  /** The environment the editors' storage folders are found from (src/modes/editor-storage.ts); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Turns a parsed document into `{customModes: [...]}` before validation (legacy role files). */
  convertDocument?: (value: unknown, file: string) => unknown;
  /** Home of the Kilo Code sources (default: the user's home). */
  homeDir?: string;
  /** Whether AGENTS.md and friends feed the prompts (then the watcher reports their edits); default true. */
  agentRules?: boolean;
  /** Parsed mode files remembered across processes (the hook's, which starts anew for every call). */
  layerCache?: LayerCache;
}

/** Everything one parsed mode file depends on: the result is the same whenever these are. */
export interface LayerKey {
  text: string;
  file: string;
  source: Exclude<ModeSource, 'builtin'>;
  jsonFallback: boolean;
  /** A mode set's document, converted from legacy roles first. */
  converted: boolean;
  onlySlug: string | undefined;
}

/** A store of parsed mode files; a miss or any failure of its own is simply no answer. */
export interface LayerCache {
  get(key: LayerKey): LayerResult | undefined;
  set(key: LayerKey, result: LayerResult): void;
}

/** layerFromText through `cache` when there is one: parsed once per text, however many processes ask. */
export async function cachedLayerFromText(
  cache: LayerCache | undefined, text: string, file: string, source: Exclude<ModeSource, 'builtin'>, jsonFallback: boolean,
  convert?: (value: unknown, file: string) => unknown, onlySlug?: string,
): Promise<LayerResult> {
  if (cache === undefined) return layerFromText(text, file, source, jsonFallback, convert, onlySlug);
  const key: LayerKey = { text, file, source, jsonFallback, converted: convert !== undefined, onlySlug };
  const known = cache.get(key);
  if (known !== undefined) return known;
  const result = await layerFromText(text, file, source, jsonFallback, convert, onlySlug);
  cache.set(key, result);
  return result;
}

/** The path facts the source table needs, from a sources config. */
export function sourcePaths(config: ModeSourcesConfig): SourcePaths {
  return {
    projectRoot: config.projectRoot, configDir: config.configDir, globalModesFile: config.globalModesFile,
    homeDir: config.homeDir ?? homedir(), platform: process.platform, env: config.env ?? process.env,
  };
}

/** An immutable view of the modes in force. */
export class Catalogue {
  readonly modes: readonly CompiledMode[];
  /** Problems to fix: broken files, skipped modes, duplicate slugs. */
  readonly issues: readonly ModeIssue[];
  /** Informational: files that hold no modes, a mode-set pointer that was not followed. */
  readonly notices: readonly ModeIssue[];
  /** Loaded, but worth a look: keys no dialect knows (one per file). */
  readonly warnings: readonly ModeIssue[];
  /** The files that were read (absolute paths), whether or not they held valid modes. */
  readonly files: readonly string[];
  /** The global modes file in use (read or not), null when none was configured or found. */
  readonly globalFile: string | null;
  readonly #bySlug: ReadonlyMap<string, CompiledMode>;

  constructor(parts: { modes: CompiledMode[]; issues?: ModeIssue[]; notices?: ModeIssue[]; warnings?: ModeIssue[]; files?: string[]; globalFile?: string | null }) {
    this.globalFile = parts.globalFile ?? null;
    this.modes = Object.freeze([...parts.modes]);
    this.issues = Object.freeze([...(parts.issues ?? [])]);
    this.notices = Object.freeze([...(parts.notices ?? [])]);
    this.warnings = Object.freeze([...(parts.warnings ?? [])]);
    this.files = Object.freeze([...(parts.files ?? [])]);
    this.#bySlug = new Map(this.modes.map((m) => [m.slug, m]));
  }

  get(slug: string): CompiledMode | undefined { return this.#bySlug.get(slug); }

  /** Why a slug is missing, when a mode file says: its entry was skipped, or a file naming it failed to load. */
  problemFor(slug: string): ModeIssue | undefined {
    if (this.#bySlug.has(slug)) return undefined;
    return this.issues.find((i) => i.slug === slug) ?? this.issues.find((i) => i.mentions?.includes(slug));
  }
  slugs(): string[] { return this.modes.map((m) => m.slug); }
}

/**
 * Precedence by slug: the first layer that defines a slug wins, then built-ins. A custom mode with
 * a built-in slug takes the built-in's place; new slugs follow the built-ins, in layer then file order.
 */
export function mergeLayers(builtins: readonly Mode[], layers: readonly (readonly Mode[])[]): Mode[] {
  const taken = new Set<string>();
  const custom: Mode[] = [];
  for (const layer of layers) {
    for (const m of layer) if (!taken.has(m.slug)) { taken.add(m.slug); custom.push(m); }
  }
  const bySlug = new Map(custom.map((m) => [m.slug, m]));
  const builtinSlugs = new Set(builtins.map((m) => m.slug));
  return [...builtins.map((b) => bySlug.get(b.slug) ?? b), ...custom.filter((m) => !builtinSlugs.has(m.slug))];
}

/** What of a mode a reader can see, as text: equal texts mean an unchanged mode. */
export const fingerprint = (m: Mode): string => JSON.stringify([
  m.name, m.roleDefinition, m.whenToUse, m.description, m.customInstructions, m.groups, m.source, m.file,
  m.allowedMcpServers, m.iconName, m.declaredSource,
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

/** One file the catalogue reads, with the row of the source table it belongs to. */
export interface LayerFile {
  row: string;
  file: string;
  source: Exclude<ModeSource, 'builtin'>;
  jsonFallback: boolean;
  /** The active mode set, standing in for .roomodes (legacy role files are converted). */
  modeset: boolean;
}

export interface ModeFiles {
  /** Highest precedence first. */
  layers: LayerFile[];
  notices: ModeIssue[];
  /** This server's global modes file in use (the global-config row), null when none was set or found. */
  globalFile: string | null;
}

/** Which files feed the catalogue: each row of the source table, the active mode set in place of .roomodes. */
export async function resolveModeFiles(config: ModeSourcesConfig): Promise<ModeFiles> {
  const notices: ModeIssue[] = [];
  const paths = sourcePaths(config);
  const layers: LayerFile[] = [];
  for (const row of MODE_SOURCES) {
    const base = { row: row.id, source: row.source, jsonFallback: row.jsonFallback, modeset: false };
    if (row.id === 'project-roomodes' && config.projectRoot !== null) {
      const set = await activeModeSet(config, notices);
      layers.push(set !== null ? { ...base, file: set, modeset: true } : { ...base, file: row.candidates(paths)[0]! });
      continue;
    }
    const candidates = row.candidates(paths);
    if (row.id.startsWith('project-')) {
      // Project files are listed even when missing: the catalogue reports them as absent, cheaply.
      for (const file of candidates) layers.push({ ...base, file });
      continue;
    }
    for (const file of candidates) {
      if (!(await isFile(file))) continue;
      layers.push({ ...base, file });
      if (row.pick === 'first') break;
    }
  }
  const configured = config.globalModesFile === null ? null : resolve(config.globalModesFile);
  return { layers, notices, globalFile: layers.find((l) => l.row === 'global-config')?.file ?? configured };
}

/** The active mode set's file, or null (with a notice when a pointer exists but cannot be followed). */
async function activeModeSet(config: ModeSourcesConfig, notices: ModeIssue[]): Promise<string | null> {
  const root = resolve(config.projectRoot!);
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
  if (name === null) return null;
  const rolesDir = join(setsDir, ROLES_DIR);
  const target = safeName(name) && SET_EXTENSIONS.some((ext) => name!.endsWith(ext)) ? join(rolesDir, name) : null;
  const problem = target === null
    ? 'the active mode set pointer must hold a plain .yaml, .yml or .json file name (its content is not shown)'
    : !(await isFile(target)) ? `the active mode set "${name}" is not a file in ${rolesDir}`
      : !(await staysInside(target, root)) ? `the active mode set "${name}" leads outside the project through a symbolic link`
        : null;
  if (problem === null && target !== null) return target;
  notices.push({ file: pointer, line: 1, message: `${problem}; using .roomodes` });
  return null;
}

export interface LayerResult { modes: Mode[]; issues: ModeIssue[]; notices: ModeIssue[]; warnings: ModeIssue[]; read: boolean }

/** A layer file's text, or what the catalogue reports instead (nothing when the file is missing). */
export type LayerText = { text: string } | { text: null; issue: ModeIssue | null };

/** Reads one mode file's text; a missing file is simply absent, and nothing here throws. */
export async function readLayerText(file: string): Promise<LayerText> {
  try {
    // Links are followed (a .roomodes linked from a shared checkout is common); only a regular file
    // within the size cap is read, and opening never blocks (a FIFO would hang the load for ever).
    return { text: (await readFileSafely(file, { maxBytes: MAX_MODE_FILE_BYTES, links: 'follow' })).text };
  } catch (err) {
    if (err instanceof UnsafeFileError && err.reason === 'missing') return { text: null, issue: null };
    const message = err instanceof UnsafeFileError
      ? (err.reason === 'not_regular' ? 'not a regular file' : err.reason === 'too_large' ? `the file ${err.problem}; mode files over ${MAX_MODE_FILE_BYTES} bytes are refused` : err.problem)
      : `cannot read the file (${errCode(err) ?? (err instanceof Error ? err.message : String(err))})`;
    return { text: null, issue: { file, line: 1, message } };
  }
}

/** Reads and validates one mode file. A missing file is simply absent; nothing here throws. */
export async function readModeLayer(
  file: string, source: Exclude<ModeSource, 'builtin'>, jsonFallback: boolean,
  convert?: (value: unknown, file: string) => unknown, cache?: LayerCache,
): Promise<LayerResult> {
  const read = await readLayerText(file);
  if (read.text === null) return { modes: [], issues: read.issue === null ? [] : [read.issue], notices: [], warnings: [], read: false };
  return cachedLayerFromText(cache, read.text, file, source, jsonFallback, convert);
}

/**
 * Parses and validates the text of one mode file (read: true). Nothing here throws. With `onlySlug`,
 * only the entries whose slug is exactly that are checked (one decision needs one mode): the modes
 * are then those of the whole file with that slug, and the reports cover those entries alone.
 */
export async function layerFromText(
  text: string, file: string, source: Exclude<ModeSource, 'builtin'>, jsonFallback: boolean,
  convert?: (value: unknown, file: string) => unknown, onlySlug?: string,
): Promise<LayerResult> {
  const out: LayerResult = { modes: [], issues: [], notices: [], warnings: [], read: true };
  // The YAML reader loads only when a mode file exists: a server with none never pays for it.
  const [{ readModeFileText }, { YamlError }] = await Promise.all([import('./mode-file.js'), import('../yaml/read.js')]);
  let parsed: YamlDocument;
  try {
    parsed = readModeFileText(text, { jsonFallback });
  } catch (err) {
    const at = err instanceof YamlError ? { line: err.line, column: err.column } : { line: 1 };
    const mentions = slugsMentioned(text);
    // The position leads the report (file:line:column), so the reader's own "at line L, column C" goes.
    const reason = err instanceof YamlError ? err.message.replace(/ at line \d+, column \d+$/, '') : err instanceof Error ? err.message : String(err);
    out.issues.push({ file, ...at, message: `cannot parse the file: ${reason}`, ...(mentions.length ? { mentions } : {}) });
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
  if (onlySlug !== undefined && isRecord(value) && Array.isArray(value.customModes)) {
    // An entry whose slug is not exactly this string can neither be this mode nor hide it.
    value = { ...value, customModes: value.customModes.filter((e: unknown) => isRecord(e) && e.slug === onlySlug) };
  }
  let checked: ReturnType<typeof validateModeDocument>;
  try {
    checked = validateModeDocument(value, file, parsed.positions, { locateKey: keyLocator(text), style: formatOfText(text) });
  } catch (err) {
    // One hostile file must never keep the other sources (or the server) from loading.
    out.issues.push({ file, line: 1, message: `cannot check the file: ${err instanceof Error ? err.message : String(err)}` });
    return out;
  }
  out.issues.push(...checked.issues);
  out.notices.push(...checked.notices);
  out.warnings.push(...checked.warnings);
  out.modes = checked.modes.map((p) => ({ ...p.mode, source, file, ...(p.line !== undefined ? { line: p.line } : {}) }));
  return out;
}

/** Reads every source and builds a fresh catalogue. */
export async function loadCatalogue(config: ModeSourcesConfig): Promise<Catalogue> {
  const files = await resolveModeFiles(config);
  const read = await Promise.all(files.layers.map((l) =>
    readModeLayer(l.file, l.source, l.jsonFallback, l.modeset ? config.convertDocument : undefined, config.layerCache)));
  const merged = mergeLayers(builtinModes(), read.map((r) => r.modes));
  // Reports and file lists go lowest precedence first (global files, then the project's).
  const order = read.map((r, i) => ({ r, file: files.layers[i]!.file })).reverse();
  return new Catalogue({
    modes: merged.map((m) => Object.freeze(compileMode(m))),
    issues: order.flatMap(({ r }) => r.issues),
    notices: [...files.notices, ...order.flatMap(({ r }) => r.notices)],
    warnings: order.flatMap(({ r }) => r.warnings),
    files: order.filter(({ r }) => r.read).map(({ file }) => file),
    globalFile: files.globalFile,
  });
}
