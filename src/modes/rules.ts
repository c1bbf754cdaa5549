// Finds and reads rules files in Roo's order (~/.roo then <project>/.roo, with the .roorules and
// .clinerules fallbacks, and the project's AGENTS.md). Async and read-only; never composes or caches.
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { readFileSafely } from '../files/safe-read.js';

export interface RulesContext {
  projectRoot: string | null;
  homeDir: string;
  /** Roo's useAgentRules: read AGENTS.md (or AGENT.md) and AGENTS.local.md (default true). */
  useAgentRules?: boolean;
}

export interface RuleFile {
  /** Absolute path. */
  path: string;
  /** How the prompt names it: relative to the project, `~/…` under home, else absolute. */
  display: string;
  /** Trimmed text; may have been cut at `cap` bytes (then `cut` is true). */
  content: string;
  cut: boolean;
}

/** In prompt order: the mode's own rules, then the project's agent rules, then the generic rules. */
export interface RuleSets { mode: RuleFile[]; agents: RuleFile[]; general: RuleFile[] }

/**
 * The agent-rules files of the project root, in Roo's order: AGENTS.md, or AGENT.md when AGENTS.md
 * is missing or empty; then AGENTS.local.md. One table, also what the mode watcher looks at.
 */
export const AGENT_RULES_FILES = { main: ['AGENTS.md', 'AGENT.md'], local: 'AGENTS.local.md' } as const;

/** Editor droppings and caches that are never rules. */
const SKIPPED_SUFFIXES = ['.log', '.bak', '.tmp', '.lock'];
const SKIPPED_NAMES = new Set(['.DS_Store', 'Thumbs.db']);
/** How deep rules directories are followed (symlinked directories included), as Roo does. */
const MAX_DEPTH = 5;

const skipped = (name: string): boolean => SKIPPED_NAMES.has(name) || SKIPPED_SUFFIXES.some((s) => name.endsWith(s));

function displayPath(path: string, ctx: RulesContext): string {
  const inside = (root: string): string | null => {
    const rel = relative(root, path);
    return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel) ? rel.split(sep).join('/') : null;
  };
  if (ctx.projectRoot !== null) {
    const rel = inside(resolve(ctx.projectRoot));
    if (rel !== null) return rel;
  }
  const home = inside(resolve(ctx.homeDir));
  return home !== null ? `~/${home}` : path.split(sep).join('/');
}

/** Every rules file under `dir`, sorted by file name (case-insensitive), then by path. */
async function listFiles(dir: string, depth = 0): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return []; // a missing or unreadable directory simply contributes nothing
  }
  const out: string[] = [];
  for (const e of entries) {
    if (skipped(e.name)) continue;
    const full = join(dir, e.name);
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (e.isSymbolicLink()) {
      try {
        const s = await stat(full);
        isDir = s.isDirectory();
        isFile = s.isFile();
      } catch {
        continue; // dangling link
      }
    }
    if (isFile) out.push(full);
    else if (isDir && depth + 1 < MAX_DEPTH) out.push(...(await listFiles(full, depth + 1)));
  }
  if (depth > 0) return out;
  const key = (p: string): string => basename(p).toLowerCase();
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Reads at most `cap` bytes (cut on a character boundary); null when missing, unreadable or refused.
 * Links are followed as Roo follows them, but a file the project brings (under the project root)
 * must resolve inside the project: a cloned repository cannot pull ~/.ssh/id_rsa into a prompt.
 * The user's own rules (~/.roo) may link anywhere. FIFOs, devices and directories are never read.
 */
async function readCapped(path: string, cap: number, ctx: RulesContext): Promise<{ text: string; cut: boolean } | null> {
  const project = ctx.projectRoot === null ? null : resolve(ctx.projectRoot);
  const rel = project === null ? '..' : relative(project, path);
  const fromProject = rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  try {
    const r = await readFileSafely(path, { maxBytes: cap, links: 'follow', cut: true, ...(fromProject && project !== null ? { confineTo: project } : {}) });
    return { text: r.text, cut: r.cut };
  } catch {
    return null;
  }
}

async function readAll(paths: readonly string[], ctx: RulesContext, cap: number): Promise<RuleFile[]> {
  const out: RuleFile[] = [];
  for (const path of paths) {
    const read = await readCapped(path, cap, ctx);
    if (!read) continue;
    const content = read.text.trim();
    if (content.length > 0) out.push({ path, display: displayPath(path, ctx), content, cut: read.cut });
  }
  return out;
}

/** The .roo directories in Roo's order: global first, then the project's (once if they coincide). */
function rooDirs(ctx: RulesContext): string[] {
  const dirs = [join(resolve(ctx.homeDir), '.roo')];
  if (ctx.projectRoot !== null) {
    const project = join(resolve(ctx.projectRoot), '.roo');
    if (project !== dirs[0]) dirs.push(project);
  }
  return dirs;
}

/** Rules from `<.roo>/<sub>/` of each .roo dir; else the first non-empty fallback file of the project. */
async function collect(sub: string, fallbacks: readonly string[], ctx: RulesContext, cap: number): Promise<RuleFile[]> {
  const paths: string[] = [];
  for (const dir of rooDirs(ctx)) paths.push(...(await listFiles(join(dir, sub))));
  const found = await readAll(paths, ctx, cap);
  if (found.length > 0 || ctx.projectRoot === null) return found;
  for (const name of fallbacks) {
    const one = await readAll([join(resolve(ctx.projectRoot), name)], ctx, cap);
    if (one.length > 0) return one;
  }
  return [];
}

/** AGENTS.md (else AGENT.md) and AGENTS.local.md from the project root, bounded and confined. */
export async function loadAgentRules(ctx: RulesContext, cap: number): Promise<RuleFile[]> {
  if (ctx.projectRoot === null || ctx.useAgentRules === false) return [];
  const root = resolve(ctx.projectRoot);
  const readOne = async (name: string): Promise<RuleFile[]> => {
    // Under the project root, so readAll confines it there (a link out of the project reads nothing).
    return readAll([join(root, name)], ctx, cap);
  };
  let main: RuleFile[] = [];
  for (const name of AGENT_RULES_FILES.main) {
    main = await readOne(name);
    if (main.length > 0) break;
  }
  return [...main, ...(await readOne(AGENT_RULES_FILES.local))];
}

/**
 * The rules for a mode: its own (rules-<slug>/, .roorules-<slug>, .clinerules-<slug>), the
 * project's agent rules (AGENTS.md…) and those for every mode (rules/, .roorules, .clinerules). No file is read past `cap` bytes.
 */
export async function loadRules(slug: string, ctx: RulesContext, cap: number): Promise<RuleSets> {
  const mode = await collect(`rules-${slug}`, [`.roorules-${slug}`, `.clinerules-${slug}`], ctx, cap);
  const agents = await loadAgentRules(ctx, cap);
  const general = await collect('rules', ['.roorules', '.clinerules'], ctx, cap);
  return { mode, agents, general };
}
