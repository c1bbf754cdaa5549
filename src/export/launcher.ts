// What the hooks of a Claude Code or Cursor export start: the self-contained check (the default),
// a command of the user's, or serve --http; and how a re-export reads back the one it wrote, from
// the hook entries in its own files. Reads files; never writes one.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { JSONC, parseJson } from '../jsonc/read.js';
import { parseYaml } from '../yaml/read.js';
import { splitShellWords } from './shell-words.js';
import { SETTINGS_FILES, exportedHandler } from './settings.js';
import { CURSOR_HOOKS_FILE, exportedCursorEntry } from './cursor-hooks.js';
import { CHECK_LAUNCHERS } from './vendored.js';
import { writtenByExport } from './source.js';

export type Launcher =
  /** node and the check file export writes beside the agent's files. */
  | { kind: 'vendored' }
  /** These words (roo-modes-server on PATH, or --hook-command's). */
  | { kind: 'command'; words: readonly string[] }
  /** Claude Code's HTTP hooks asking serve --http at this URL. */
  | { kind: 'http'; url: string };

export type LauncherHost = 'claude-code' | 'cursor';

/** A launcher an earlier export wrote, the file its hook entry is in, and what kind of file that is. */
export interface WrittenLauncher { launcher: Launcher; file: string; in: 'agent' | 'settings' | 'cursor-hooks' }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (file: string): Promise<string | null> => readFile(file, 'utf8').catch(() => null);

/** The words before `hook <host>` in a hook's command, as a launcher; null when they are not there. */
function fromWords(words: readonly string[], host: LauncherHost): Launcher | null {
  const at = words.findIndex((w, i) => w === 'hook' && words[i + 1] === host);
  if (at < 1) return null;
  const launcher = words.slice(0, at);
  return isDeepStrictEqual(launcher, CHECK_LAUNCHERS[host]) ? { kind: 'vendored' } : { kind: 'command', words: launcher };
}

/**
 * One Claude Code handler as a launcher: exec form, or HTTP. The command lines of exports before the
 * exec form are not read back: they named the exporting machine's node and clone.
 */
function handlerLauncher(h: unknown): Launcher | null {
  if (!isRecord(h)) return null;
  if (h.type === 'http' && typeof h.url === 'string') {
    try {
      const url = new URL(h.url);
      url.searchParams.delete('mode');
      return { kind: 'http', url: url.href };
    } catch { return null; }
  }
  if (typeof h.command !== 'string' || !Array.isArray(h.args) || !h.args.every((a) => typeof a === 'string')) return null;
  return fromWords([h.command, ...h.args as string[]], 'claude-code');
}

/** The handlers under hooks.PreToolUse (settings and frontmatter share the shape). */
const preToolUseHandlers = (doc: unknown): unknown[] => {
  const groups = isRecord(doc) && isRecord(doc.hooks) && Array.isArray(doc.hooks.PreToolUse) ? doc.hooks.PreToolUse : [];
  return groups.flatMap((g) => (isRecord(g) && Array.isArray(g.hooks) ? g.hooks : []));
};

/** The frontmatter of an agent file an export wrote, parsed; null for any other file. */
function frontmatter(source: string): unknown {
  if (!writtenByExport(source) || !source.startsWith('---\n')) return null;
  const end = source.indexOf('\n---\n', 3);
  if (end === -1) return null;
  try { return parseYaml(source.slice(4, end + 1)).value; } catch { return null; }
}

function jsonc(source: string): unknown {
  try { return parseJson(source, JSONC).root.value; } catch { return null; }
}

/**
 * The launchers the hook entries of an earlier export run, in the order read: Claude Code's agent
 * files (by name), then its settings files; Cursor's hooks.json. Only entries an export wrote count.
 */
export async function writtenLaunchers(host: LauncherHost, outDir: string): Promise<WrittenLauncher[]> {
  const found: WrittenLauncher[] = [];
  const add = (file: string, launcher: Launcher | null, kind: WrittenLauncher['in']): void => { if (launcher !== null) found.push({ launcher, file, in: kind }); };
  if (host === 'cursor') {
    const file = join(outDir, CURSOR_HOOKS_FILE);
    const doc = jsonc(await text(file) ?? '');
    const entries = isRecord(doc) && isRecord(doc.hooks) && Array.isArray(doc.hooks.preToolUse) ? doc.hooks.preToolUse : [];
    for (const e of entries.filter(exportedCursorEntry)) {
      try { add(file, fromWords(splitShellWords((e as { command: string }).command), 'cursor'), 'cursor-hooks'); } catch { /* not ours to read */ }
    }
    return found;
  }
  const agents = join(outDir, '.claude', 'agents');
  for (const name of (await readdir(agents).catch(() => [] as string[])).filter((n) => n.endsWith('.md')).sort()) {
    const file = join(agents, name);
    for (const h of preToolUseHandlers(frontmatter(await text(file) ?? ''))) add(file, handlerLauncher(h), 'agent');
  }
  for (const settings of Object.values(SETTINGS_FILES)) {
    const file = join(outDir, settings);
    for (const h of preToolUseHandlers(jsonc(await text(file) ?? '')).filter(exportedHandler)) add(file, handlerLauncher(h), 'settings');
  }
  return found;
}

/** What the user asked for on the command line, if anything. */
export interface LauncherFlags { hookCommand: readonly string[]; hook?: 'vendored' | 'command' | 'http'; url: string }

export interface LauncherChoice {
  launcher: Launcher;
  /** Where it was read back from, when no flag chose it. */
  keptFrom?: string;
  /** Every launcher the hook entries of an earlier export hold, with its file. */
  written: WrittenLauncher[];
}

/**
 * The flags decide; without any, the launcher the earlier export wrote (the first one read), so a
 * re-export or `--check` in CI needs no flags repeated; with no earlier export, the check file.
 */
export async function chooseLauncher(host: LauncherHost, flags: LauncherFlags, defaultWords: readonly string[], outDir: string): Promise<LauncherChoice> {
  const written = await writtenLaunchers(host, outDir);
  const chosen: Launcher | undefined = flags.hookCommand.length > 0 ? { kind: 'command', words: flags.hookCommand }
    : flags.hook === 'http' ? { kind: 'http', url: flags.url }
      : flags.hook === 'command' ? { kind: 'command', words: defaultWords }
        : flags.hook === 'vendored' ? { kind: 'vendored' } : undefined;
  if (chosen !== undefined) return { launcher: chosen, written };
  const [first] = written;
  return first === undefined ? { launcher: { kind: 'vendored' }, written } : { launcher: first.launcher, keptFrom: first.file, written };
}

/** Launchers of an earlier export that differ from the one chosen now, in files this export leaves as they are. */
export const otherLaunchers = (c: LauncherChoice, rewritten: ReadonlySet<string>): WrittenLauncher[] =>
  c.written.filter((w) => !rewritten.has(w.file) && !isDeepStrictEqual(w.launcher, c.launcher));

/** The launcher in words, for the report. */
export function describeLauncher(l: Launcher, host: LauncherHost): string {
  if (l.kind === 'http') return `serve --http at ${l.url}`;
  return (l.kind === 'vendored' ? CHECK_LAUNCHERS[host] : l.words).join(' ');
}
