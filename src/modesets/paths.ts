// Where mode-set files live and how a caller-supplied name becomes a path inside those folders.
// It must never hand out a path outside the mode-sets folder or the template folder.
import { lstat, realpath } from 'node:fs/promises';
import { makeFolder } from '../files/atomic-write.js';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FileRestrictionError } from '../rpc/errors.js';

/** The folder layout under `<project>/<modesets.dir>/`, in one table. */
export const LAYOUT = {
  roles: 'roles',
  backups: 'backups',
  pointer: 'active_mode_set',
  lock: '.modesets.lock',
  templates: 'mode-templates',
} as const;

/** File extensions a mode set may have; backups are always YAML. */
export const SET_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;
export const BACKUP_EXTENSIONS = ['.yaml'] as const;

/**
 * A safe file name: starts with a letter or digit (so no hidden or temp file, no `-option`),
 * then letters, digits, `.`, `_`, `-`. Separators, spaces, control and shell characters never match.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export type NameKind = 'mode_file' | 'template_source' | 'backup_file' | 'mode_name' | 'backup_name';

function refuse(kind: NameKind, value: string, issue: string): never {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  throw new FileRestrictionError(`Refused ${kind} ${JSON.stringify(shown)}: ${issue}. Allowed: a plain file name matching ${NAME.source}`, {
    message: `${kind} must be a plain file name inside its folder; ${issue}`,
    error_type: 'path_restricted',
    argument: kind,
    file: shown,
    issue,
    recovery_suggestions: [
      'Pass only a file name such as "development.yaml", without folders',
      'Use letters, digits, ".", "_" and "-" only, starting with a letter or digit',
    ],
  });
}

/** Why a name is unsafe, or undefined when it is a plain name. */
function nameProblem(value: string): string | undefined {
  if (value.length === 0) return 'the name is empty';
  if (isAbsolute(value) || /^[A-Za-z]:/.test(value)) return 'absolute paths are not allowed';
  if (value.includes('..')) return '".." is not allowed';
  if (/[/\\]/.test(value)) return 'folder separators are not allowed';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'control characters are not allowed';
  if (!NAME.test(value)) return 'only letters, digits, ".", "_" and "-" are allowed, starting with a letter or digit (at most 128)';
  return undefined;
}

/** Checks a file name argument and its extension; returns it unchanged or throws -32006. */
export function checkFileName(kind: NameKind, value: string, extensions: readonly string[]): string {
  const problem = nameProblem(value);
  if (problem) refuse(kind, value, problem);
  if (!extensions.some((e) => value.toLowerCase().endsWith(e))) refuse(kind, value, `the name must end with ${extensions.join(', ')}`);
  return value;
}

/** Checks a bare name (mode_name, backup_name) that becomes part of a file name. */
export function checkBareName(kind: NameKind, value: string): string {
  const problem = nameProblem(value);
  if (problem) refuse(kind, value, problem);
  return value;
}

const isInside = (root: string, p: string): boolean => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
};

async function realOrNull(p: string): Promise<string | null> {
  try { return await realpath(p); } catch { return null; }
}

/** The folders of one project's mode sets, computed per call (the project root can change). */
export class ModesetPaths {
  readonly base: string;
  readonly roles: string;
  readonly backups: string;
  readonly pointer: string;
  readonly lock: string;
  readonly templates: string;
  /** The folder the base must stay inside after symlinks are followed (the project). */
  readonly #trusted: string;

  constructor(projectRoot: string, modesetsDir: string, configDir: string) {
    const root = resolve(projectRoot);
    this.base = resolve(root, modesetsDir);
    this.#trusted = isAbsolute(modesetsDir) ? this.base : root;
    this.roles = join(this.base, LAYOUT.roles);
    this.backups = join(this.base, LAYOUT.backups);
    this.pointer = join(this.base, LAYOUT.pointer);
    this.lock = join(this.base, LAYOUT.lock);
    this.templates = join(resolve(configDir), LAYOUT.templates);
  }

  /** Creates a folder under the base when missing and checks it did not lead outside. */
  async ensureDir(dir: string): Promise<void> {
    await makeFolder(dir);
    await this.checkDir(dir);
  }

  /** Refuses a folder that symlinks lead outside the project (or, for templates, outside itself). */
  async checkDir(dir: string): Promise<void> {
    const real = await realOrNull(dir);
    if (real === null) return;
    if (dir === this.templates) return;
    const trusted = (await realOrNull(this.#trusted)) ?? this.#trusted;
    if (!isInside(trusted, real)) refuse('mode_file', dir, 'the mode-sets folder leads outside the project through a symlink');
  }

  /**
   * The path of `name` inside `dir` after the name check; if the entry exists (even as a dangling
   * symlink) its real location must be inside the real `dir`. Returns the path and whether it exists.
   */
  async inside(dir: string, name: string, kind: NameKind): Promise<{ path: string; exists: boolean }> {
    await this.checkDir(dir);
    const path = join(dir, name);
    let isLink = false;
    try { isLink = (await lstat(path)).isSymbolicLink(); } catch { return { path, exists: false }; }
    const real = await realOrNull(path);
    const realDir = (await realOrNull(dir)) ?? dir;
    if (real === null) {
      if (isLink) refuse(kind, name, 'the file is a symlink that leads nowhere');
      return { path, exists: false };
    }
    if (!isInside(realDir, real) || real === realDir) refuse(kind, name, 'the file is a symlink that leads outside its folder');
    return { path, exists: true };
  }
}
