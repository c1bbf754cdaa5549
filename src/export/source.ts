// What every export target starts from: a mode with its instructions composed the way Roo composes
// them (role, mode instructions, rules files) and a line saying where it came from. Read-only.
import { relative, resolve, sep } from 'node:path';
import type { CompiledMode } from '../modes/permissions.js';
import type { GroupName } from '../modes/types.js';
import { loadRules } from '../modes/rules.js';
import { EXPORT_MARK } from './mark.js';

export { EXPORT_MARK, writtenByExport } from './mark.js';

/** Rules are capped like the system prompt's (prompt.ts), so one huge file cannot bloat an agent. */
const MAX_RULES_BYTES = 64 * 1024;

export interface ExportMode {
  mode: CompiledMode;
  /** The instructions: role, then the mode's custom instructions, then its rules and the general rules. */
  body: string;
  /** "mode architect (built-in)" or "mode docs-writer from .roomodes line 3". */
  provenance: string;
  /** One line for the people and agents reading the file. */
  description: string;
}

/** What exported hooks run when no --hook-command is given: the package's bin, found on PATH. */
export const DEFAULT_LAUNCHER: readonly string[] = ['roo-modes-server'];

/** How Claude Code's hooks reach the decision: a process per call, or `serve --http`'s endpoint. */
export type HookTransport = { kind: 'command' } | { kind: 'http'; url: string };

export interface ExportContext {
  projectRoot: string;
  homeDir: string;
  /**
   * The launcher words exported hooks run (DEFAULT_LAUNCHER unless --hook-command chose others).
   * Never a path of the exporting machine: the files are committed and run elsewhere.
   */
  entryCommand: readonly string[];
  hook: HookTransport;
  /** Write `ask` (and say why) where an edit rule has no exact translation, instead of refusing. */
  lossy: boolean;
  /** (cursor) the mode .cursor/hooks.json enforces, if one was chosen with --enforce. */
  enforce?: string;
}

/** What one target made of one mode: the file, or why not; and what it could not carry over. */
export interface TargetOutput {
  path?: string;
  text?: string;
  /** More files for the same mode (Cursor: the subagent beside the rule). */
  also?: { path: string; text: string }[];
  refused?: string;
  lost: string[];
  /** What the agent itself holds the mode to, for the report (when it is not the same for every mode). */
  enforced?: string[];
}

/** How a file names a place: relative to the project, `~/…` under home, else absolute. */
export function displayPath(file: string, ctx: { projectRoot: string; homeDir: string }): string {
  for (const [root, prefix] of [[ctx.projectRoot, ''], [ctx.homeDir, '~/']] as const) {
    const rel = relative(resolve(root), file);
    if (rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel)) return prefix + rel.split(sep).join('/');
  }
  return file.split(sep).join('/');
}

function firstSentence(text: string): string {
  const m = /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim());
  return (m ? m[0] : text.trim()).replace(/\s+/g, ' ');
}

/** "mode architect (built-in)" or "mode docs-writer from .roomodes line 3". */
export function provenance(mode: CompiledMode, ctx: { projectRoot: string; homeDir: string }): string {
  return mode.file === undefined
    ? `mode ${mode.slug} (built-in)`
    : `mode ${mode.slug} from ${displayPath(mode.file, ctx)}${mode.line !== undefined ? ` line ${mode.line}` : ''}`;
}

export async function prepareMode(mode: CompiledMode, ctx: ExportContext): Promise<ExportMode> {
  const rules = await loadRules(mode.slug, { projectRoot: ctx.projectRoot, homeDir: ctx.homeDir }, MAX_RULES_BYTES);
  const parts = [mode.roleDefinition.trim()];
  if (mode.customInstructions?.trim()) parts.push(`## Mode instructions\n\n${mode.customInstructions.trim()}`);
  for (const f of [...rules.mode, ...rules.general]) parts.push(`## Rules from ${f.display}\n\n${f.content}`);
  const about = mode.whenToUse?.trim() || mode.description?.trim() || firstSentence(mode.roleDefinition);
  return { mode, body: `${parts.join('\n\n')}\n`, provenance: provenance(mode, ctx), description: about.replace(/\s+/g, ' ') };
}


/** `---`, a provenance comment, the YAML lines, `---`, then the body. */
export function withFrontmatter(m: ExportMode, yamlLines: readonly string[], body: string): string {
  const header = `# ${EXPORT_MARK} from ${m.provenance}; export again rather than editing.`;
  return ['---', header, ...yamlLines, '---', '', body].join('\n');
}

/** A `${NAME}` placeholder (`${CLAUDE_PROJECT_DIR}`) inside a launcher word. */
const PLACEHOLDER = /(\$\{[A-Za-z_][A-Za-z0-9_]*\})/;
/** Characters a POSIX shell reads literally outside quotes. */
const BARE = /^[A-Za-z0-9_\/.:=@%+-]+$/;

/**
 * A command word as a POSIX shell reads it back: bare when safe, else single-quoted, except that a
 * `${NAME}` placeholder is left in double quotes so the shell still expands it from the environment.
 */
export function shellWord(word: string): string {
  if (BARE.test(word)) return word;
  if (word === '') return "''";
  return word.split(PLACEHOLDER).filter((p) => p !== '').map((p) => (
    PLACEHOLDER.test(p) ? `"${p}"` : BARE.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`
  )).join('');
}

/** The launcher's words followed by `args`: what an exec-form hook spawns. */
export function launcherWords(ctx: ExportContext, args: readonly string[]): string[] {
  return [...ctx.entryCommand, ...args];
}

/** The same words as one shell command line, for agents whose hooks take a single string. */
export function launcherLine(ctx: ExportContext, args: readonly string[]): string {
  return launcherWords(ctx, args).map(shellWord).join(' ');
}

/** The Claude Code hook's command line for one mode (VS Code's agent hooks run it too). */
export function hookCommand(ctx: ExportContext, slug: string, extra: readonly string[] = []): string {
  return launcherLine(ctx, ['hook', 'claude-code', '--mode', slug, ...extra]);
}

/**
 * The agent's tool names a mode's groups allow (`allowed: true`) or leave out (`false`), each once,
 * in table order. A name several groups share (browser and Zoo's web) is allowed when any of them is.
 */
export function toolsByGroups(table: Readonly<Record<GroupName, readonly string[]>>, groups: ReadonlySet<GroupName>, allowed: boolean): string[] {
  const on = new Set((Object.keys(table) as GroupName[]).filter((g) => groups.has(g)).flatMap((g) => table[g]));
  const all = new Set((Object.keys(table) as GroupName[]).flatMap((g) => table[g]));
  return [...all].filter((t) => on.has(t) === allowed);
}
