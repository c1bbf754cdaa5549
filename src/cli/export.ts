// `roo-modes-server export --to claude-code|claude-code-plugin|vscode|cursor|opencode|kilo|gemini`: writes the modes in force
// as the other agent's files and reports what could not be carried over. Never overwrites a file it
// did not write unless told to, and never writes a path of this machine into one.
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { readdir, readFile } from 'node:fs/promises';
import { loadCatalogue, type Catalogue } from '../modes/catalogue.js';
import type { ModeIssue } from '../modes/types.js';
import type { CompiledMode } from '../modes/permissions.js';
import { convertLegacyRoles } from '../modesets/legacy.js';
import { makeFolder, writeFileAtomic } from '../files/atomic-write.js';
import { FileWriteError } from '../files/write-errors.js';
import type { UpsertOutcome } from '../jsonc/edit.js';
import { prepareMode, writtenByExport, type ExportContext, type ExportMode, type TargetOutput } from '../export/source.js';
import { claudeCodeAgent, claudeHook, hookEntry, MIN_CLAUDE_CODE_FAIL_CLOSED, pluginAgent } from '../export/claude-code.js';
import { DEFAULT_PLUGIN_NAME } from '../export/claude-plugin.js';
import { cliProjectRoot } from './project-root.js';
import { findOnPath, notOnPathHint, selfCommand } from './on-path.js';
import { DEFAULT_HOOK_URL, hookNotes, hookRunner, hookUrl, launcherFor, launcherWords, placeCheck } from './export-hooks.js';
import { pluginName, pluginNotes, writeClaudePlugin } from './export-claude-plugin.js';
import { vscodeAgent } from '../export/vscode.js';
import { cursorRule } from '../export/cursor.js';
import { openCodeAgent } from '../export/opencode.js';
import { SETTINGS_FILES, mergeHooks } from '../export/settings.js';
import { CURSOR_HOOKS_FILE, cursorHookEntry, mergeCursorHooks } from '../export/cursor-hooks.js';
import { NO_TARGET, enforcementNotes } from '../export/enforcement.js';
import { geminiAgent } from '../export/gemini.js';
import { writeGeminiPolicy } from './export-gemini.js';
import { writeOpenCodePlugin } from './export-opencode-plugin.js';
import { mergeJsonFile } from './merge-json-file.js';
import { expandHome, readCommand, usageMessage, type Command, type Option, type Values } from './options.js';

export interface ExportIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** This installation's dist/main.cjs: named (on stderr only) in the hint when the launcher is not on PATH. */
  mainPath?: string;
}

/** The targets: each turns one prepared mode into one file (or a refusal). */
const TARGETS: Readonly<Record<string, (m: ExportMode, ctx: ExportContext) => TargetOutput>> = {
  'claude-code': claudeCodeAgent,
  'claude-code-plugin': pluginAgent,
  vscode: vscodeAgent,
  cursor: (m, ctx) => cursorRule(m, ctx),
  opencode: openCodeAgent('.opencode'),
  kilo: openCodeAgent('.kilo'),
  gemini: geminiAgent,
};

/** The folders each target writes its per-mode files into, where a full export looks for its left-overs. */
const FOLDERS: Readonly<Record<string, readonly string[]>> = {
  'claude-code': ['.claude/agents'], 'claude-code-plugin': ['agents'], vscode: ['.github/agents'], cursor: ['.cursor/rules', '.cursor/agents'],
  opencode: ['.opencode/agents'], kilo: ['.kilo/agents'], gemini: ['.gemini/agents'],
};

const OPENCODE_LIKE = ['opencode', 'kilo'];

const OPTIONS = [
  { name: '--to', kind: 'enum', value: 'AGENT', choices: Object.keys(TARGETS), required: true, help: 'the target' },
  { name: '--mode', kind: 'string', value: 'SLUG', repeatable: true, help: 'export this mode, built-in or not (repeatable; default: every custom mode of the project)' },
  { name: '--builtins', kind: 'switch', help: 'also export the built-in modes (their instructions name Roo-only tools)' },
  { name: '--include-global', kind: 'switch', help: 'also export your global (personal) modes (~/.roo-code, an editor\'s storage, ~/.kilocodemodes): they go into the project\'s shared files, and teammates do not have them' },
  { name: '--out', kind: 'path', value: 'DIR', help: 'where to write (default: the project root)' },
  { name: '--project-root', kind: 'path', value: 'DIR', help: 'the project whose modes are read (default: $ROO_PROJECT_ROOT, else the nearest folder up from here holding .roomodes, .roo/ or .git, else .)' },
  { name: '--config-dir', kind: 'path', value: 'DIR', help: 'global modes folder (default: $ROO_CONFIG_DIR or ~/.roo-code)' },
  { name: '--check', kind: 'switch', help: 'write nothing; exit 1 when a file differs from what export would write' },
  { name: '--force', kind: 'switch', help: 'also replace files export did not write (its own are always updated)' },
  { name: '--dry-run', kind: 'switch', help: 'print what would be written; write nothing' },
  { name: '--lossy', kind: 'switch', goesWith: { option: '--to', values: OPENCODE_LIKE }, help: '(opencode, kilo) write "ask" where a fileRegex has no exact glob' },
  { name: '--hook-command', kind: 'string', value: 'CMD', repeatable: true, parse: launcherWords,
    help: 'what hooks run instead of the check file (claude-code, cursor) or roo-modes-server on PATH (the others): words, or a JSON array of words; repeatable, the words add up. ${CLAUDE_PROJECT_DIR} is left for Claude Code to fill in, e.g.\n--hook-command \'${CLAUDE_PROJECT_DIR}/node_modules/.bin/roo-modes-server\'' },
  { name: '--hook', kind: 'enum', value: 'vendored|command|http', choices: ['vendored', 'command', 'http'], goesWith: { option: '--to', values: ['claude-code', 'cursor'] },
    help: '(claude-code, cursor) what the hooks start. vendored: node and the check file this export writes beside the agents (.claude/hooks/roo-modes-check.cjs, .cursor/hooks/roo-modes-check.cjs), so nothing but Node needs installing; command: roo-modes-server on PATH (or --hook-command); http (claude-code): ask serve --http. Default: what the earlier export wrote, else vendored' },
  { name: '--url', kind: 'string', value: 'URL', parse: hookUrl, default: DEFAULT_HOOK_URL, goesWith: { option: '--hook', values: ['http'] }, help: '(--hook http) the endpoint' },
  { name: '--settings', kind: 'switch', goesWith: { option: '--to', values: ['claude-code'] },
    help: '(claude-code) also add one hook for every exported agent to .claude/settings.json (backed up): it also runs in folders Claude Code has not trusted (a fresh clone, CI), where it skips the agent files\' hooks' },
  { name: '--settings-local', kind: 'switch', goesWith: { option: '--to', values: ['claude-code'] }, help: 'the same in .claude/settings.local.json' },
  { name: '--enforce', kind: 'string', value: 'SLUG', repeatable: true, goesWith: { option: '--to', values: ['cursor'] },
    help: '(cursor) enforce this mode through a preToolUse hook in .cursor/hooks.json (merged, backed up). Cursor tells a hook no rule or mode, so it holds in every agent chat of the project; one mode at a time' },
  { name: '--plugin', kind: 'switch', goesWith: { option: '--to', values: OPENCODE_LIKE },
    help: '(opencode, kilo) also write .opencode/plugins/roo-modes.js or .kilo/plugin/roo-modes.js and the decision code beside it (.opencode/roo-modes/decision.cjs, .kilo/roo-modes/decision.cjs): decides before each call of an exported agent inside the agent, nothing to install, and blocks when refused or when the decision code cannot run' },
  { name: '--plugin-url', kind: 'string', value: 'URL', goesWith: { option: '--plugin' },
    help: "(with --plugin) ask serve --http's endpoint instead of deciding in process, e.g. http://127.0.0.1:3000/hooks/claude-code (token: $ROO_MODES_HTTP_TOKEN)" },
  { name: '--name', kind: 'string', value: 'NAME', parse: pluginName, default: DEFAULT_PLUGIN_NAME, goesWith: { option: '--to', values: ['claude-code-plugin'] },
    help: '(claude-code-plugin) the plugin\'s name; its agents are NAME:<agent>' },
  { name: '--marketplace', kind: 'switch', goesWith: { option: '--to', values: ['claude-code-plugin'] },
    help: '(claude-code-plugin) also write .claude-plugin/marketplace.json, making the folder a marketplace of this one plugin (NAME-marketplace) that a team adds once' },
] as const satisfies readonly Option[];

type ExportArgs = Values<typeof OPTIONS>;

/** What the table cannot say: options that exclude each other, and values that must agree. */
function usageProblem(a: ExportArgs): string | null {
  if (a.settings && a.settingsLocal) return '--settings and --settings-local name two files; pick one';
  if (a.hookCommand.length > 0 && (a.hook === 'http' || a.hook === 'vendored')) return `--hook-command names the command hooks run; it does not go with --hook ${a.hook}`;
  if (a.hook === 'http' && a.to === 'cursor') return 'Cursor\'s hooks are commands: --hook http goes with --to claude-code';
  if (a.to === 'claude-code-plugin' && a.out === undefined) return '--to claude-code-plugin writes a plugin folder: name it with --out DIR';
  if (a.to === 'claude-code-plugin' && a.hookCommand.length > 0) return 'a plugin runs the check file it carries: --hook-command does not go with --to claude-code-plugin';
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
                                             runs the check written beside them
                                             (.claude/hooks/roo-modes-check.cjs) on fileRegex
  claude-code-plugin  DIR (--out)            a plugin: agents/<slug>.md, one hook in
                                             hooks/hooks.json, the check and the modes it reads
                                             (--marketplace: also a marketplace of it)
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

/** A launcher word that names a file on this machine, which the other machines will not have. */
const machinePath = (word: string): boolean => !word.startsWith('${') && (isAbsolute(word) || /^[A-Za-z]:[\\/]/.test(word));

export async function runExport(argv: string[], io: ExportIo): Promise<number> {
  const args = readCommand(COMMAND, argv, io);
  if (typeof args === 'number') return args;
  const target = args.to!;
  const settings = args.settingsLocal ? 'local' : args.settings ? 'shared' : undefined;
  const enforce = args.enforce[0];
  const projectRoot = cliProjectRoot(args.projectRoot, io);
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
  const launcher = await launcherFor(target, args, outDir);
  const ctx: ExportContext = { projectRoot, homeDir: expandHome('~', io.env), ...hookRunner(target, launcher.launcher), lossy: args.lossy, enforce };
  const put = (file: string, text: string, detail?: (old: string) => string): Promise<boolean> => place(file, text, args, io, report, detail);

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
    for (const f of files) failed = !(await put(join(outDir, f.path), f.text)) || failed;
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
  const plugin = { name: args.name, marketplace: args.marketplace };
  if (target === 'claude-code-plugin') failed = !(await writeClaudePlugin(outDir, exported, plugin, put)) || failed;
  const claudeHooks = target === 'claude-code' && (settings !== undefined || modes.some((m) => m.compiled.edit));
  // The files this export put hooks into; an earlier export's hooks elsewhere are left as they are.
  const rewritten = new Set([...seen.keys(), ...(settings !== undefined ? [SETTINGS_FILES[settings]] : []), ...(enforce !== undefined ? [CURSOR_HOOKS_FILE] : [])].map((f) => join(outDir, f)));
  const runsCheck = (launcher.launcher.kind === 'vendored' && (claudeHooks || enforce !== undefined || target === 'claude-code-plugin'))
    || launcher.written.some((w) => !rewritten.has(w.file) && w.launcher.kind === 'vendored');
  failed = !(await placeCheck(target, launcher.launcher, runsCheck, outDir, put, report)) || failed;
  if (target === 'gemini') {
    const gemini = await writeGeminiPolicy(outDir, exported, catalogue, ctx, {
      place: (file, text) => put(file, text),
      merge: (file, merge, what) => mergeInto(file, merge, what, args, io, report),
    });
    for (const a of gemini.orphans) report.push(`  warning: .gemini/agents/${a}.md is from an earlier export, for a mode that no longer exists: the policy refuses its writes and commands; delete it or export that mode again`);
    failed = !gemini.ok || failed;
  }
  const openCode = args.plugin && agents.size > 0;
  if (openCode) {
    const wrote = await writeOpenCodePlugin(outDir, target as 'opencode' | 'kilo', agents, args.pluginUrl, { place: (file, text, explain) => put(file, text, explain) });
    failed = !wrote || failed;
  }
  const hooked = target === 'claude-code' ? exported.filter((m) => claudeHooks && (settings !== undefined || m.compiled.edit)) : exported.filter((m) => m.slug === enforce);
  const globalModes = target === 'claude-code' || target === 'cursor' ? hooked.filter((m) => m.source === 'global').map((m) => m.slug) : [];
  for (const note of hookNotes({ target, choice: launcher, ctx, claudeHooks, settings, enforce, rewritten, globalModes })) report.push(`  ${note.startsWith('warning: ') ? '' : 'enforcement: '}${note}`);
  if (target === 'claude-code-plugin' && exported.length > 0) for (const note of pluginNotes(outDir, plugin)) report.push(`  enforcement: ${note}`);
  for (const note of enforcementNotes(target, { enforce, plugin: openCode ? (args.pluginUrl ?? 'in-process') : undefined })) report.push(`  enforcement: ${note}`);
  // Whatever runs the launcher words (Claude Code's hooks, Cursor's, the plugin's) needs them to exist there.
  const runsLauncher = (claudeHooks && ctx.hook.kind === 'command') || enforce !== undefined;
  const local = runsLauncher ? ctx.entryCommand.filter(machinePath) : [];
  if (local.length > 0) report.push(`  warning: the hook command names ${local.join(', ')}, a path that exists only where it was made`);
  // A launcher found through PATH (roo-modes-server by default) that PATH does not have here: the
  // hooks would fail (or block every call) on this machine until it is installed.
  const word = ctx.entryCommand[0];
  if (runsLauncher && launcher.launcher.kind === 'command' && word !== undefined && !word.includes('/') && !word.includes('${') && findOnPath(word, io.env) === null) {
    io.err(notOnPathHint('roo-modes-server export', word, 'the hook this export writes', word === 'roo-modes-server' ? io.mainPath : undefined));
  }
  const what = `${modes.length} mode${modes.length === 1 ? '' : 's'}`;
  io.out(`export --to ${target}${args.check ? ' --check' : ''} (${what}) ${args.check ? 'against' : 'into'} ${outDir}:\n${report.join('\n')}\n`);
  const n = broken.ours.length;
  // The hint names a command that runs here (node …/dist/main.cjs in a clone not on PATH).
  const me = io.mainPath === undefined ? 'roo-modes-server' : selfCommand(io.env, io.mainPath, process.cwd());
  if (n > 0 && args.mode.length === 0) io.out(`${n === 1 ? 'A broken mode was left' : `${n} problems in the mode files left modes`} out of this export: fix ${n === 1 ? 'it' : 'them'} (${me} validate) and export again.\n`);
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
async function place(file: string, text: string, args: ExportArgs, io: ExportIo, report: string[], detail?: (old: string) => string): Promise<boolean> {
  const old = await readIfExists(file);
  if (old === text) { report.push(`  unchanged: ${file}`); return true; }
  const ours = old === null || writtenByExport(old);
  if (args.check) {
    report.push(`  ${old === null ? 'missing' : ours ? 'stale' : 'differs (not written by export)'}: ${file}${old !== null && ours && detail ? ` (${detail(old)})` : ''}`);
    return false;
  }
  if (!ours && !args.force) {
    report.push(`  refused: ${file} exists and was not written by roo-modes-server export (--force replaces it)`);
    return false;
  }
  const verb = old === null ? 'write' : ours ? 'update' : 'overwrite';
  // The check file (the one with a detail) is the built hook, not worth printing whole.
  if (args.dryRun) { io.out(`==> ${file} (would ${verb}) <==\n${detail ? `${text.split('\n', 1)[0]}\n(${text.length} bytes; not shown)` : text}\n`); report.push(`  would ${verb}: ${file}`); return true; }
  try {
    await makeFolder(dirname(file));
    await writeFileAtomic(file, text);
  } catch (err) {
    report.push(err instanceof FileWriteError ? `  failed: ${err.message}` : `  failed: ${file}: ${err instanceof Error ? err.message : String(err)}`);
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
  // The old file's copy goes to the .roo/backups/ of the folder exported into (the project, by default).
  const merged = await mergeJsonFile(file, merge, what, args.check ? 'check' : args.dryRun ? 'dry-run' : 'write', resolve(expandHome(args.out ?? args.projectRoot ?? (io.env.ROO_PROJECT_ROOT || '.'), io.env)));
  if (merged.preview !== undefined) io.out(`==> ${file} (would ${merged.preview.verb}) <==\n${merged.preview.text}\n`);
  report.push(`  ${merged.line}`);
  return merged.ok;
}
