// `roo-modes-server export --to claude-code|vscode|cursor|opencode|kilo|gemini`: writes the modes in force
// as the other agent's files and reports what could not be carried over. Never overwrites a file it
// did not write unless told to, and never writes a path of this machine into one.
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { loadCatalogue, type Catalogue } from '../modes/catalogue.js';
import type { ModeIssue } from '../modes/types.js';
import type { CompiledMode } from '../modes/permissions.js';
import { convertLegacyRoles } from '../modesets/legacy.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { UpsertOutcome } from '../jsonc/edit.js';
import { DEFAULT_LAUNCHER, prepareMode, writtenByExport, type ExportContext, type ExportMode, type HookTransport, type TargetOutput } from '../export/source.js';
import { claudeCodeAgent, claudeHook, hookEntry, MIN_CLAUDE_CODE_FAIL_CLOSED } from '../export/claude-code.js';
import { vscodeAgent } from '../export/vscode.js';
import { cursorRule } from '../export/cursor.js';
import { openCodeAgent } from '../export/opencode.js';
import { SETTINGS_FILES, mergeHooks } from '../export/settings.js';
import { CURSOR_HOOKS_FILE, cursorHookEntry, mergeCursorHooks } from '../export/cursor-hooks.js';
import { NO_TARGET, enforcementNotes } from '../export/enforcement.js';
import { geminiAgent } from '../export/gemini.js';
import { writeGeminiPolicy } from './export-gemini.js';
import { writeOpenCodePlugin } from './export-plugin.js';
import { mergeJsonFile } from './merge-json-file.js';
import { expandHome, readCommand, usageMessage, UsageError, type Command, type Option, type Values } from './options.js';
import { ShellWordsError, splitShellWords } from './shell-words.js';

export interface ExportIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** serve --http's default address and the hook endpoint's path (CONTRACTS.md). */
const DEFAULT_HOOK_URL = 'http://127.0.0.1:3000/hooks/claude-code';

/** The targets: each turns one prepared mode into one file (or a refusal). */
const TARGETS: Readonly<Record<string, (m: ExportMode, ctx: ExportContext) => TargetOutput>> = {
  'claude-code': claudeCodeAgent,
  vscode: vscodeAgent,
  cursor: (m, ctx) => cursorRule(m, ctx.enforce),
  opencode: openCodeAgent('.opencode'),
  kilo: openCodeAgent('.kilo'),
  gemini: geminiAgent,
};

/** The folders each target writes its per-mode files into, where a full export looks for its left-overs. */
const FOLDERS: Readonly<Record<string, readonly string[]>> = {
  'claude-code': ['.claude/agents'], vscode: ['.github/agents'], cursor: ['.cursor/rules', '.cursor/agents'], opencode: ['.opencode/agents'],
  kilo: ['.kilo/agents'], gemini: ['.gemini/agents'],
};

/**
 * One --hook-command value as words: a JSON array of words, or words split as a POSIX shell would
 * (quotes kept literal, `${…}` left for the agent). The values of a repeated flag add up.
 */
function launcherWords(value: string): string[] {
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
function hookUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch { /* refused below */ }
  throw new UsageError(`--url ${JSON.stringify(value)} is not an http:// or https:// URL`);
}

const OPENCODE_LIKE = ['opencode', 'kilo'];

const OPTIONS = [
  { name: '--to', kind: 'enum', value: 'AGENT', choices: Object.keys(TARGETS), required: true, help: 'the target' },
  { name: '--mode', kind: 'string', value: 'SLUG', repeatable: true, help: 'export this mode, built-in or not (repeatable; default: every custom mode of the project)' },
  { name: '--builtins', kind: 'switch', help: 'also export the built-in modes (their instructions name Roo-only tools)' },
  { name: '--include-global', kind: 'switch', help: 'also export your global (personal) modes (~/.roo-code, an editor\'s storage, ~/.kilocodemodes): they go into the project\'s shared files, and teammates do not have them' },
  { name: '--out', kind: 'path', value: 'DIR', help: 'where to write (default: the project root)' },
  { name: '--project-root', kind: 'path', value: 'DIR', help: 'the project whose modes are read (default: $ROO_PROJECT_ROOT or .)' },
  { name: '--config-dir', kind: 'path', value: 'DIR', help: 'global modes folder (default: $ROO_CONFIG_DIR or ~/.roo-code)' },
  { name: '--check', kind: 'switch', help: 'write nothing; exit 1 when a file differs from what export would write' },
  { name: '--force', kind: 'switch', help: 'also replace files export did not write (its own are always updated)' },
  { name: '--dry-run', kind: 'switch', help: 'print what would be written; write nothing' },
  { name: '--lossy', kind: 'switch', goesWith: { option: '--to', values: OPENCODE_LIKE }, help: '(opencode, kilo) write "ask" where a fileRegex has no exact glob' },
  { name: '--hook-command', kind: 'string', value: 'CMD', repeatable: true, parse: launcherWords,
    help: 'what hooks run instead of roo-modes-server (found on PATH): words, or a JSON array of words; repeatable, the words add up. ${CLAUDE_PROJECT_DIR} is left for Claude Code to fill in, e.g.\n--hook-command \'${CLAUDE_PROJECT_DIR}/node_modules/.bin/roo-modes-server\'' },
  { name: '--hook', kind: 'enum', value: 'command|http', choices: ['command', 'http'], default: 'command', goesWith: { option: '--to', values: ['claude-code'] },
    help: '(claude-code) run the hook per call, or ask serve --http' },
  { name: '--url', kind: 'string', value: 'URL', parse: hookUrl, default: DEFAULT_HOOK_URL, goesWith: { option: '--hook', values: ['http'] }, help: '(--hook http) the endpoint' },
  { name: '--settings', kind: 'switch', goesWith: { option: '--to', values: ['claude-code'] },
    help: '(claude-code) also add one hook for every exported agent to .claude/settings.json (backed up): it also runs in claude -p' },
  { name: '--settings-local', kind: 'switch', goesWith: { option: '--to', values: ['claude-code'] }, help: 'the same in .claude/settings.local.json' },
  { name: '--enforce', kind: 'string', value: 'SLUG', repeatable: true, goesWith: { option: '--to', values: ['cursor'] },
    help: '(cursor) enforce this mode through a preToolUse hook in .cursor/hooks.json (merged, backed up). Cursor tells a hook no rule or mode, so it holds in every agent chat of the project; one mode at a time' },
  { name: '--plugin', kind: 'switch', goesWith: { option: '--to', values: OPENCODE_LIKE },
    help: '(opencode, kilo) also write .opencode/plugins/roo-modes.js or .kilo/plugin/roo-modes.js and the decision code beside it (.opencode/roo-modes/decision.cjs, .kilo/roo-modes/decision.cjs): decides before each call of an exported agent inside the agent, nothing to install, and blocks when refused or when the decision code cannot run' },
  { name: '--plugin-url', kind: 'string', value: 'URL', goesWith: { option: '--plugin' },
    help: "(with --plugin) ask serve --http's endpoint instead of deciding in process, e.g. http://127.0.0.1:3000/hooks/claude-code (token: $ROO_MODES_HTTP_TOKEN)" },
] as const satisfies readonly Option[];

type ExportArgs = Values<typeof OPTIONS>;

/** What the table cannot say: options that exclude each other, and values that must agree. */
function usageProblem(a: ExportArgs): string | null {
  if (a.settings && a.settingsLocal) return '--settings and --settings-local name two files; pick one';
  if (a.hookCommand.length > 0 && a.hook === 'http') return '--hook-command goes with command hooks, not --hook http';
  if (a.hookCommand.length > 0 && OPENCODE_LIKE.includes(a.to!)) return `--hook-command has no use with --to ${a.to}: its --plugin decides inside the agent`;
  if (a.hookCommand.length > 0 && a.hookCommand.flat().length === 0) return '--hook-command names no command';
  if (a.check && (a.dryRun || a.force)) return `--check writes nothing; it does not go with ${a.dryRun ? '--dry-run' : '--force'}`;
  if (a.pluginUrl !== undefined && !/^https?:\/\/[^/?#]+\/[^?#]*$/.test(a.pluginUrl)) return `--plugin-url ${a.pluginUrl} is not an http(s) URL with a path and no query, such as http://127.0.0.1:3000/hooks/claude-code`;
  const [enforce, another] = a.enforce;
  if (another !== undefined) return '--enforce takes one mode: Cursor runs every hook on every call, so two would hold each chat to both modes';
  if (enforce !== undefined && a.mode.length > 0 && !a.mode.includes(enforce)) return `--enforce ${enforce} names a mode this export leaves out; add --mode ${enforce}`;
  return null;
}

const COMMAND: Command<typeof OPTIONS> = {
  name: 'export',
  usage: [`--to ${Object.keys(TARGETS).join('|')} [options]`],
  about: `Writes the project's custom modes (built-in ones with --builtins, your global ones with
--include-global) as the other agent's files:
  claude-code  .claude/agents/<slug>.md      subagent; tools from the groups; a PreToolUse hook
                                             (roo-modes-server hook claude-code) enforces fileRegex
  vscode       .github/agents/<slug>.agent.md custom agent; tool sets; agent-scoped hook
  cursor       .cursor/rules/<slug>.mdc      rule, and .cursor/agents/<slug>.md a subagent (readonly
                                             without edit); limits described (--enforce: a hook
                                             binds one)
  opencode     .opencode/agents/<slug>.md    agent; permission rules, last match wins (--plugin:
                                             a plugin also decides before each call, in process)
  kilo         .kilo/agents/<slug>.md        the same, for Kilo Code 7
  gemini       .gemini/agents/<slug>.md      subagent; tools from the groups; deny rules per
                                             subagent in .gemini/policies/roo-modes.toml, named
                                             in .gemini/settings.json (policyPaths)`,
  options: OPTIONS,
  check: usageProblem,
  notes: `Claude Code hooks carry "onFailure": "block", honoured from Claude Code ${MIN_CLAUDE_CODE_FAIL_CLOSED}: a hook that
cannot run blocks the edit. Older versions ignore it and let the edit through.
Exit status: 0 done (or, with --check, up to date), 1 something was refused, stale or could not be
written, or a broken mode was left out (the rest is written), 2 bad usage.

Enforcement elsewhere:
${NO_TARGET.map((l) => `  ${l}`).join('\n')}`,
};

async function readIfExists(path: string): Promise<string | null> {
  try { return await readFile(path, 'utf8'); } catch (err) {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return null;
    throw err;
  }
}

/** How Claude Code enforces the export, and what it does when the hook cannot run (said once per export). */
const ENFORCEMENT: Readonly<Record<string, (ctx: ExportContext) => string>> = {
  'claude-code': (ctx) => ctx.hook.kind === 'http'
    ? `the hooks ask ${ctx.hook.url.split('?')[0]}: keep roo-modes-server serve --http running there (with ROO_MODES_HTTP_TOKEN set when it uses a token); "onFailure": "block" makes an unreachable server block the edit from Claude Code ${MIN_CLAUDE_CODE_FAIL_CLOSED}, older versions ignore it and let the edit through`
    : `the hooks run ${ctx.entryCommand.join(' ')} and carry "onFailure": "block": from Claude Code ${MIN_CLAUDE_CODE_FAIL_CLOSED} an edit is blocked when the hook cannot run; older versions ignore the key and let the edit through (fail open)`,
};

/** A launcher word that names a file on this machine, which the other machines will not have. */
const machinePath = (word: string): boolean => !word.startsWith('${') && (isAbsolute(word) || /^[A-Za-z]:[\\/]/.test(word));

export async function runExport(argv: string[], io: ExportIo): Promise<number> {
  const args = readCommand(COMMAND, argv, io);
  if (typeof args === 'number') return args;
  const target = args.to!;
  const settings = args.settingsLocal ? 'local' : args.settings ? 'shared' : undefined;
  const enforce = args.enforce[0];
  const hook: HookTransport = args.hook === 'http' ? { kind: 'http', url: args.url } : { kind: 'command' };
  const projectRoot = resolve(expandHome(args.projectRoot ?? (io.env.ROO_PROJECT_ROOT || '.'), io.env));
  const outDir = resolve(expandHome(args.out ?? projectRoot, io.env));
  const catalogue = await loadCatalogue({
    projectRoot, configDir: resolve(expandHome(args.configDir ?? (io.env.ROO_CONFIG_DIR || '~/.roo-code'), io.env)),
    globalModesFile: null, convertDocument: convertLegacyRoles,
  });
  const unknown = args.mode.filter((s) => !catalogue.get(s));
  if (unknown.length > 0) { io.err(`${usageMessage('export', `unknown mode ${unknown.join(', ')}; the modes in force: ${catalogue.slugs().join(', ')}`)}\n`); return 2; }
  // Personal modes would land in the project's shared files unannounced: only on request.
  const personal = args.mode.map((s) => catalogue.get(s)!).filter((m) => m.source === 'global');
  if (personal.length > 0 && !args.includeGlobal) {
    io.err(`${usageMessage('export', `${personal.map((m) => `${m.slug} is a global (personal) mode from ${m.file ?? 'your global modes'}`).join('; ')}: add --include-global to export ${personal.length === 1 ? 'it' : 'them'} into the project`)}\n`);
    return 2;
  }
  // Built-in modes' instructions name Roo-only tools (new_task, attempt_completion): only on request.
  const wanted = (m: CompiledMode): boolean => (m.source === 'builtin' ? args.builtins : m.source === 'global' ? args.includeGlobal : true);
  const modes = args.mode.length > 0 ? [...new Set(args.mode)].map((s) => catalogue.get(s)!) : catalogue.modes.filter(wanted);
  const leftGlobal = args.mode.length > 0 ? [] : catalogue.modes.filter((m) => m.source === 'global' && !wanted(m));
  if (enforce !== undefined && !catalogue.get(enforce)) { io.err(`${usageMessage('export', `unknown mode ${enforce} for --enforce; the modes in force: ${catalogue.slugs().join(', ')}`)}\n`); return 2; }
  const entryCommand = args.hookCommand.length > 0 ? args.hookCommand.flat() : DEFAULT_LAUNCHER;
  const ctx: ExportContext = { projectRoot, homeDir: expandHome('~', io.env), entryCommand, hook, lossy: args.lossy, enforce };

  // A broken mode is reported and the rest still exports; the exit status then says something is missing.
  const report: string[] = [];
  const broken = brokenModes(catalogue, projectRoot, args.includeGlobal);
  for (const i of broken.ours) report.push(`  skipped (broken): ${i.file}:${i.line ?? 1}: ${i.message}`);
  for (const i of broken.personal) report.push(`  problem in your global mode files (not exported): ${i.file}:${i.line ?? 1}: ${i.message}`);
  if (leftGlobal.length > 0) report.push(`  not exported (global, personal): ${leftGlobal.map((m) => m.slug).join(', ')}; --include-global exports them into the project's files`);
  if (modes.length === 0) report.push('  no custom modes to export (--builtins exports the built-in ones, --include-global your global ones, --mode SLUG one of them)');
  // With --mode the named modes were found: a broken other one is not part of this export.
  let failed = broken.ours.length > 0 && args.mode.length === 0;
  const seen = new Map<string, string>();
  /** Agent name → slug of each agent file produced, for --plugin. */
  const agents = new Map<string, string>();
  const exported: CompiledMode[] = [];
  for (const mode of modes) {
    const result = TARGETS[target]!(await prepareMode(mode, ctx), ctx);
    for (const l of result.enforced ?? []) report.push(`  enforced (${mode.slug}): ${l}`);
    for (const l of result.lost) report.push(`  not carried over (${mode.slug}): ${l}`);
    if (result.refused !== undefined || result.path === undefined || result.text === undefined) {
      report.push(`  refused: ${result.refused ?? mode.slug}`);
      failed = true;
      continue;
    }
    const files = [{ path: result.path, text: result.text }, ...(result.also ?? [])];
    const clash = files.map((f) => [f.path, seen.get(f.path)] as const).find(([, other]) => other !== undefined);
    if (clash !== undefined) { report.push(`  refused: ${mode.slug} and ${clash[1]} both become ${clash[0]}`); failed = true; continue; }
    for (const f of files) seen.set(f.path, mode.slug);
    agents.set(mode.slug, mode.slug);
    exported.push(mode);
    for (const f of files) failed = !(await place(join(outDir, f.path), f.text, args, io, report)) || failed;
  }
  // After a full export, an exported file no mode produced any more still steers the agent: say so.
  for (const folder of args.mode.length === 0 ? FOLDERS[target] ?? [] : []) failed = !(await leftovers(join(outDir, folder), seen, outDir, report)) || failed;
  if (settings !== undefined) {
    const entry = hookEntry(claudeHook(ctx, null));
    failed = !(await mergeInto(join(outDir, SETTINGS_FILES[settings]), (text) => mergeHooks(text, entry), 'one hook for every exported agent, by agent_type', args, io, report)) || failed;
  }
  if (enforce !== undefined) {
    const entry = cursorHookEntry(ctx, enforce);
    failed = !(await mergeInto(join(outDir, CURSOR_HOOKS_FILE), (text) => mergeCursorHooks(text, entry), `preToolUse hook for mode ${enforce}`, args, io, report)) || failed;
  }
  if (target === 'gemini') {
    const gemini = await writeGeminiPolicy(outDir, exported, catalogue, ctx, {
      place: (file, text) => place(file, text, args, io, report),
      merge: (file, merge, what) => mergeInto(file, merge, what, args, io, report),
    });
    for (const a of gemini.orphans) report.push(`  warning: .gemini/agents/${a}.md is from an earlier export, for a mode that no longer exists: the policy refuses its writes and commands; delete it or export that mode again`);
    failed = !gemini.ok || failed;
  }
  const plugin = args.plugin && agents.size > 0;
  if (plugin) {
    const wrote = await writeOpenCodePlugin(outDir, target as 'opencode' | 'kilo', agents, args.pluginUrl, { place: (file, text, explain) => place(file, text, args, io, report, explain) });
    failed = !wrote || failed;
  }
  const enforcement = ENFORCEMENT[target];
  const claudeHooks = enforcement !== undefined && (settings !== undefined || modes.some((m) => m.compiled.edit));
  if (claudeHooks) report.push(`  enforcement: ${enforcement(ctx)}`);
  for (const note of enforcementNotes(target, { enforce, plugin: plugin ? (args.pluginUrl ?? 'in-process') : undefined })) report.push(`  enforcement: ${note}`);
  // Whatever runs the launcher words (Claude Code's hooks, Cursor's) needs them to exist there.
  const runsLauncher = (claudeHooks && ctx.hook.kind === 'command') || enforce !== undefined;
  const local = runsLauncher ? ctx.entryCommand.filter(machinePath) : [];
  if (local.length > 0) report.push(`  warning: the hook command names ${local.join(', ')}, a path that exists only where it was made`);
  const what = `${modes.length} mode${modes.length === 1 ? '' : 's'}`;
  io.out(`export --to ${target}${args.check ? ' --check' : ''} (${what}) ${args.check ? 'against' : 'into'} ${outDir}:\n${report.join('\n')}\n`);
  const n = broken.ours.length;
  if (n > 0 && args.mode.length === 0) io.out(`${n === 1 ? 'A broken mode was left' : `${n} problems in the mode files left modes`} out of this export: fix ${n === 1 ? 'it' : 'them'} (roo-modes-server validate) and export again.\n`);
  else if (args.check && failed) io.out('Some files are not what export would write: run the same command without --check.\n');
  return failed ? 1 : 0;
}

/** The catalogue's problems, split into those of the files this export draws from and the user's other global files. */
function brokenModes(catalogue: Catalogue, projectRoot: string, includeGlobal: boolean): { ours: ModeIssue[]; personal: ModeIssue[] } {
  const inProject = (file: string): boolean => { const rel = relative(projectRoot, file); return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel); };
  const ours = catalogue.issues.filter((i) => includeGlobal || inProject(i.file));
  return { ours, personal: catalogue.issues.filter((i) => !ours.includes(i)) };
}

/**
 * Writes one file: a new one, or one an export wrote before (its header says so). A file someone
 * else wrote is replaced only with --force. With --check nothing is written and any difference
 * fails. False when the file is refused, stale (--check) or could not be written.
 */
async function place(file: string, text: string, args: ExportArgs, io: ExportIo, report: string[], explain?: (old: string) => string): Promise<boolean> {
  const old = await readIfExists(file);
  if (old === text) { report.push(`  unchanged: ${file}`); return true; }
  const ours = old === null || writtenByExport(old);
  if (args.check) {
    report.push(`  ${old === null ? 'missing' : ours ? 'stale' : 'differs (not written by export)'}: ${file}${old !== null && explain ? ` (${explain(old)})` : ''}`);
    return false;
  }
  if (!ours && !args.force) {
    report.push(`  refused: ${file} exists and was not written by roo-modes-server export (--force replaces it)`);
    return false;
  }
  const verb = old === null ? 'write' : ours ? 'update' : 'overwrite';
  if (args.dryRun) { io.out(`==> ${file} (would ${verb}) <==\n${text}\n`); report.push(`  would ${verb}: ${file}`); return true; }
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, text);
  } catch (err) {
    report.push(`  failed: ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
  report.push(`  ${old === null ? 'wrote' : ours ? 'updated' : 'overwrote'}: ${file}`);
  return true;
}

/** Reports files in `folder` that carry the export's header but that no exported mode wrote; false when there are any. */
async function leftovers(folder: string, written: ReadonlyMap<string, string>, outDir: string, report: string[]): Promise<boolean> {
  const names = await readdir(folder).catch(() => [] as string[]);
  let clean = true;
  for (const name of names.sort()) {
    const file = join(folder, name);
    if (written.has(relative(outDir, file).split(sep).join('/'))) continue;
    const text = await readIfExists(file).catch(() => null);
    if (text === null || !writtenByExport(text)) continue;
    report.push(`  left over: ${file} (an earlier export's, for a mode not exported now: delete it, or export that mode with --mode or --builtins)`);
    clean = false;
  }
  return clean;
}

/** Merges an entry into a JSON config the agent shares with others (a backup kept); false when refused, stale or failed. */
async function mergeInto(file: string, merge: (text: string) => UpsertOutcome, what: string, args: ExportArgs, io: ExportIo, report: string[]): Promise<boolean> {
  const merged = await mergeJsonFile(file, merge, what, args.check ? 'check' : args.dryRun ? 'dry-run' : 'write');
  if (merged.preview !== undefined) io.out(`==> ${file} (would ${merged.preview.verb}) <==\n${merged.preview.text}\n`);
  report.push(`  ${merged.line}`);
  return merged.ok;
}
