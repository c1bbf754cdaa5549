// What `export` decides and writes for the hooks of Claude Code, Cursor and the Claude Code plugin
// beside the agent files: the launcher (--hook, --hook-command, --url, or the one written before),
// the check file, and the report's lines on what stops an edit and what happens when the check
// cannot start. It writes only through the writer it is given.
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { DEFAULT_LAUNCHER, writtenByExport, type ExportContext, type HookTransport } from '../export/source.js';
import { MIN_CLAUDE_CODE_FAIL_CLOSED } from '../export/claude-code.js';
import { CHECK_LAUNCHERS, CHECK_MIN_NODE, CHECK_PATHS, builtVendored, staleness, type CheckHost } from '../export/vendored.js';
import { chooseLauncher, describeLauncher, otherLaunchers, type Launcher, type LauncherChoice } from '../export/launcher.js';
import { SETTINGS_FILES } from '../export/settings.js';
import { UsageError } from './options.js';
import { ShellWordsError, splitShellWords } from '../export/shell-words.js';

/** serve --http's default address and the hook endpoint's path (CONTRACTS.md). */
export const DEFAULT_HOOK_URL = 'http://127.0.0.1:3000/hooks/claude-code';

/**
 * One --hook-command value as words: a JSON array of words, or words split as a POSIX shell would
 * (quotes kept literal, `${…}` left for the agent). The values of a repeated flag add up.
 */
export function launcherWords(value: string): string[] {
  if (value.trimStart().startsWith('[')) {
    let parsed: unknown;
    try { parsed = JSON.parse(value); } catch (err) { throw new UsageError(`--hook-command ${JSON.stringify(value)} is not a JSON array (${(err as Error).message})`); }
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((w) => typeof w === 'string' && w !== '')) {
      throw new UsageError(`--hook-command ${JSON.stringify(value)}: a JSON array must hold non-empty strings`);
    }
    return parsed as string[];
  }
  try { return splitShellWords(value); } catch (err) {
    if (!(err instanceof ShellWordsError)) throw err;
    throw new UsageError(`--hook-command ${JSON.stringify(value)}: ${err.message}`);
  }
}

/** An http(s) URL for --url. */
export function hookUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch { /* refused below */ }
  throw new UsageError(`--url ${JSON.stringify(value)} is not an http:// or https:// URL`);
}

export interface HookFlags { hookCommand: readonly string[][]; hook?: 'vendored' | 'command' | 'http'; url: string }

/** The hosts whose hooks can run the check file, and the plugin, which always does. */
const checkHost = (target: string): CheckHost | null => (target in CHECK_PATHS ? target as CheckHost : null);

/** The launcher of this export: chosen by flags, read back from the earlier export, or the default. */
export async function launcherFor(target: string, flags: HookFlags, outDir: string): Promise<LauncherChoice> {
  if (target === 'claude-code-plugin') return { launcher: { kind: 'vendored' }, written: [] };
  if (target === 'claude-code' || target === 'cursor') return chooseLauncher(target, { ...flags, hookCommand: flags.hookCommand.flat() }, DEFAULT_LAUNCHER, outDir);
  return { launcher: { kind: 'command', words: flags.hookCommand.length > 0 ? flags.hookCommand.flat() : DEFAULT_LAUNCHER }, written: [] };
}

/** What the hooks of `target` start under `launcher`: the launcher words, and the transport. */
export function hookRunner(target: string, launcher: Launcher): { entryCommand: readonly string[]; hook: HookTransport } {
  const host = checkHost(target);
  if (launcher.kind === 'http') return { entryCommand: DEFAULT_LAUNCHER, hook: { kind: 'http', url: launcher.url } };
  const entryCommand = launcher.kind === 'command' ? launcher.words : host !== null ? CHECK_LAUNCHERS[host] : DEFAULT_LAUNCHER;
  return { entryCommand, hook: { kind: 'command' } };
}

/** Writes (or checks) one file the export owns; `detail` says how a stale copy differs. False when refused, stale or failed. */
export type Place = (file: string, text: string, detail?: (old: string) => string) => Promise<boolean>;

/**
 * The check file beside the agent's files: written when a hook runs it (`runs`: one this export
 * writes, or one an earlier export left in a file this one does not rewrite), and kept up to date
 * while it exists under the check launcher; named as left over when no hook runs it any more.
 * `dir` is the folder the check's path is relative to (the project, or the plugin).
 */
export async function placeCheck(target: string, launcher: Launcher, runs: boolean, dir: string, place: Place, report: string[]): Promise<boolean> {
  const host = checkHost(target);
  if (host === null) return true;
  const file = join(dir, CHECK_PATHS[host]);
  const old = await readFile(file, 'utf8').catch(() => null);
  if (!runs && (old === null || !writtenByExport(old))) return true;
  if (!runs && launcher.kind !== 'vendored') {
    report.push(`  left over: ${file} (no hook runs it now: delete it, or export with --hook vendored)`);
    return false;
  }
  let fresh: string;
  try { fresh = (await builtVendored('check')).text; } catch (err) {
    report.push(`  failed: ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
  return place(file, fresh, (was) => staleness(was, fresh));
}

/** What the export wrote hooks for, as the report needs it. */
export interface HookFacts {
  target: string;
  choice: LauncherChoice;
  ctx: ExportContext;
  /** Claude Code: hooks were written (an agent with an edit pattern, or --settings). */
  claudeHooks: boolean;
  /** Claude Code: the settings file that got the by-agent hook, if any. */
  settings?: keyof typeof SETTINGS_FILES;
  /** Cursor: the mode --enforce bound. */
  enforce?: string;
  /** The files this export wrote (or checked) hooks into. */
  rewritten: ReadonlySet<string>;
  /** Slugs of the modes whose hooks were written that come from this machine's global mode files. */
  globalModes: readonly string[];
}

const NODE_MISSING = `a teammate needs Node ${CHECK_MIN_NODE} or later on PATH and nothing else`;

/** The report's lines on the hooks: what they start, what happens when it cannot start, and where they do not run. */
export function hookNotes(f: HookFacts): string[] {
  const { launcher, keptFrom, written } = f.choice;
  const host = f.target === 'cursor' ? 'cursor' : 'claude-code';
  const lines: string[] = [];
  if (f.target === 'claude-code' && f.claudeHooks) {
    const failClosed = `"onFailure": "block" blocks the edit from Claude Code ${MIN_CLAUDE_CODE_FAIL_CLOSED}; older versions ignore the key and let it through (fail open)`;
    lines.push(launcher.kind === 'http'
      ? `the hooks ask ${launcher.url.split('?')[0]}: keep roo-modes-server serve --http running there (with ROO_MODES_HTTP_TOKEN set when it uses a token); when it cannot be reached, ${failClosed}`
      : launcher.kind === 'vendored'
        ? `the hooks run ${f.ctx.entryCommand.join(' ')}, the check this export wrote beside the agents (commit it with them): ${NODE_MISSING}; where node is missing the hook cannot start, and ${failClosed}`
        : `the hooks run ${f.ctx.entryCommand.join(' ')}; when it cannot start (not installed there), ${failClosed}`);
    const settingsHook = f.settings !== undefined || written.some((w) => w.in === 'settings');
    if (!settingsHook) {
      lines.push('Claude Code skips the hooks in agent files (their frontmatter) in a folder it has not trusted, such as a fresh clone or CI, so there these agents\' edits go through unchecked; --settings also puts one hook into .claude/settings.json, which runs in every session');
    }
  }
  if (f.target === 'cursor' && f.enforce !== undefined && launcher.kind === 'vendored') {
    lines.push(`the hook runs ${f.ctx.entryCommand.join(' ')} from the project root, where Cursor runs a project's hooks: the check this export wrote (commit it with .cursor/hooks.json); ${NODE_MISSING}; where node is missing the hook cannot start, and failClosed blocks the call`);
  }
  if (f.globalModes.length > 0) {
    const where = host === 'cursor'
      ? 'the hook cannot judge and blocks every call'
      : 'the agent\'s hooks (its file\'s and the by-agent settings hook) cannot judge and block every edit';
    lines.push(`warning: mode ${f.globalModes.join(', ')} ${f.globalModes.length === 1 ? 'comes' : 'come'} from your global mode files, which the hooks read on each machine: where one is missing, ${where}; put it in the project's .roomodes${host === 'cursor' ? '' : ', or export --to claude-code-plugin, which carries its modes'}`);
  }
  if (keptFrom !== undefined && launcher.kind !== 'vendored') lines.push(`the hooks keep what the earlier export wrote (read from ${keptFrom}): ${describeLauncher(launcher, host)}; --hook or --hook-command chooses another`);
  for (const o of otherLaunchers(f.choice, f.rewritten)) lines.push(`warning: ${o.file} holds a hook an export wrote that runs ${describeLauncher(o.launcher, host)}, not ${describeLauncher(launcher, host)}: export it again with the same options, or remove that hook`);
  return lines;
}
