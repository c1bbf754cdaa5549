// What every export target starts from: a mode with its instructions composed the way Roo composes
// them (role, mode instructions, rules files) and a line saying where it came from. Read-only.
import { relative, resolve, sep } from 'node:path';
import type { CompiledMode } from '../modes/permissions.js';
import type { GroupName } from '../modes/types.js';
import { loadRules } from '../modes/rules.js';

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

export interface ExportContext {
  projectRoot: string;
  homeDir: string;
  /** [node, dist/main.js]: absolute paths of this installation, for hook commands. */
  entryCommand: readonly string[];
  /** Write `ask` (and say why) where an edit rule has no exact translation, instead of refusing. */
  lossy: boolean;
  /** (cursor) the mode .cursor/hooks.json enforces, if one was chosen with --enforce. */
  enforce?: string;
}

/** What one target made of one mode: the file, or why not; and what it could not carry over. */
export interface TargetOutput {
  path?: string;
  text?: string;
  refused?: string;
  lost: string[];
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

export async function prepareMode(mode: CompiledMode, ctx: ExportContext): Promise<ExportMode> {
  const rules = await loadRules(mode.slug, { projectRoot: ctx.projectRoot, homeDir: ctx.homeDir }, MAX_RULES_BYTES);
  const parts = [mode.roleDefinition.trim()];
  if (mode.customInstructions?.trim()) parts.push(`## Mode instructions\n\n${mode.customInstructions.trim()}`);
  for (const f of [...rules.mode, ...rules.general]) parts.push(`## Rules from ${f.display}\n\n${f.content}`);
  const provenance = mode.file === undefined
    ? `mode ${mode.slug} (built-in)`
    : `mode ${mode.slug} from ${displayPath(mode.file, ctx)}${mode.line !== undefined ? ` line ${mode.line}` : ''}`;
  const about = mode.whenToUse?.trim() || mode.description?.trim() || firstSentence(mode.roleDefinition);
  return { mode, body: `${parts.join('\n\n')}\n`, provenance, description: about.replace(/\s+/g, ' ') };
}

/** `---`, a provenance comment, the YAML lines, `---`, then the body. */
export function withFrontmatter(m: ExportMode, yamlLines: readonly string[], body: string): string {
  const header = `# Exported by roo-modes-server from ${m.provenance}; export again rather than editing.`;
  return ['---', header, ...yamlLines, '---', '', body].join('\n');
}

/** A command word as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_\/.:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The hook command of this installation for one mode. */
export function hookCommand(ctx: ExportContext, slug: string, extra: readonly string[] = []): string {
  return [...ctx.entryCommand, 'hook', 'claude-code', '--mode', slug, ...extra].map(shellWord).join(' ');
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
