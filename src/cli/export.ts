// `roo-modes-server export --to claude-code|vscode|cursor|opencode|kilo`: writes the modes in force
// as the other agent's files and reports what could not be carried over. Never overwrites unasked.
import { dirname, join, resolve } from 'node:path';
import { mkdir, readFile } from 'node:fs/promises';
import { loadCatalogue } from '../modes/catalogue.js';
import { convertLegacyRoles } from '../modesets/legacy.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { JsonSyntaxError } from './jsonc.js';
import { backup, resolveTarget } from './add-to-mcp-config.js';
import { prepareMode, hookCommand, type ExportContext, type ExportMode, type TargetOutput } from '../export/source.js';
import { agentName, claudeCodeAgent, hookEntry } from '../export/claude-code.js';
import { vscodeAgent } from '../export/vscode.js';
import { cursorRule } from '../export/cursor.js';
import { openCodeAgent } from '../export/opencode.js';
import { SETTINGS_FILE, mergeHooks } from '../export/settings.js';
import { CURSOR_HOOKS_FILE, cursorHookEntry, mergeCursorHooks } from '../export/cursor-hooks.js';
import { PLUGIN_PATHS, openCodePlugin } from '../export/opencode-plugin.js';
import { NO_TARGET, enforcementNotes } from '../export/enforcement.js';
import { mergeJsonFile } from './merge-json-file.js';
import { expandHome, readFlags } from './flags.js';

export interface ExportIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** [node, dist/main.js]: what exported hooks run. */
  entryCommand: readonly string[];
}

/** The targets: each turns one prepared mode into one file (or a refusal). */
const TARGETS: Readonly<Record<string, (m: ExportMode, ctx: ExportContext) => TargetOutput>> = {
  'claude-code': claudeCodeAgent,
  vscode: vscodeAgent,
  cursor: (m, ctx) => cursorRule(m, ctx.enforce),
  opencode: openCodeAgent('.opencode'),
  kilo: openCodeAgent('.kilo'),
};

const USAGE = `Usage: roo-modes-server export --to claude-code|vscode|cursor|opencode|kilo [options]

Writes the modes in force (built-in, global, project) as the other agent's files:
  claude-code  .claude/agents/<slug>.md      subagent; tools from the groups; a PreToolUse hook
                                             (roo-modes-server hook claude-code) enforces fileRegex
  vscode       .github/agents/<slug>.agent.md custom agent; tool sets; agent-scoped hook
  cursor       .cursor/rules/<slug>.mdc      rule; limits described (Cursor cannot enforce them)
  opencode     .opencode/agents/<slug>.md    agent; permission rules, last match wins
  kilo         .kilo/agents/<slug>.md        the same, for Kilo Code 7

  --to AGENT            the target (required)
  --mode SLUG           export this mode (repeatable; default: every mode in force)
  --out DIR             where to write (default: the project root)
  --project-root DIR    the project whose modes are read (default: $ROO_PROJECT_ROOT or .)
  --config-dir DIR      global modes folder (default: $ROO_CONFIG_DIR or ~/.roo-code)
  --force               overwrite existing files (otherwise they are kept and reported)
  --dry-run             print what would be written; write nothing
  --lossy               (opencode, kilo) write "ask" where a fileRegex has no exact glob
  --settings            (claude-code) also add the hooks to .claude/settings.json (backed up)
  --enforce SLUG        (cursor) enforce this mode through a preToolUse hook in .cursor/hooks.json
                        (merged, backed up). Cursor tells a hook no rule or mode, so it holds in
                        every agent chat of the project; one mode at a time
  --plugin              (opencode, kilo) also write .opencode/plugins/roo-modes.js or
                        .kilo/plugin/roo-modes.js: asks the hook before each call of an exported
                        agent and blocks when refused or when no answer can be had
  --plugin-url URL      (with --plugin) ask serve --http's endpoint instead of starting the hook,
                        e.g. http://127.0.0.1:3000/hooks/claude-code (token: $ROO_MODES_HTTP_TOKEN)
  -h, --help            this text
Exit status: 0 done, 1 something was refused or could not be written, 2 bad usage.

Enforcement elsewhere:
${NO_TARGET.map((l) => `  ${l}`).join('\n')}
`;

interface ExportArgs {
  help: boolean; to?: string; modes: string[]; out?: string; projectRoot?: string; configDir?: string;
  force: boolean; dryRun: boolean; lossy: boolean; settings: boolean; enforce?: string; plugin: boolean; pluginUrl?: string;
}

function parseArgs(argv: readonly string[]): ExportArgs | string {
  const f = readFlags(argv, ['-h', '--help', '--force', '--dry-run', '--lossy', '--settings', '--plugin'], ['--to', '--mode', '--out', '--project-root', '--config-dir', '--enforce', '--plugin-url']);
  if (typeof f === 'string') return f;
  if (f.rest.length > 0) return `unexpected argument ${f.rest[0]}`;
  const v = (name: string): string | undefined => f.own.get(name) as string | undefined;
  const a: ExportArgs = {
    help: f.own.has('-h') || f.own.has('--help'), modes: f.all.get('--mode') ?? [],
    force: f.own.has('--force'), dryRun: f.own.has('--dry-run'), lossy: f.own.has('--lossy'), settings: f.own.has('--settings'),
    to: v('--to'), out: v('--out'), projectRoot: v('--project-root'), configDir: v('--config-dir'),
    enforce: v('--enforce'), plugin: f.own.has('--plugin'), pluginUrl: v('--plugin-url'),
  };
  if (!a.help && a.to === undefined) return '--to is required';
  if (a.to !== undefined && !Object.prototype.hasOwnProperty.call(TARGETS, a.to)) return `unknown target "${a.to}"; use one of ${Object.keys(TARGETS).join(', ')}`;
  if (a.settings && a.to !== 'claude-code') return '--settings goes with --to claude-code';
  if (a.lossy && a.to !== 'opencode' && a.to !== 'kilo') return '--lossy goes with --to opencode or kilo';
  if (a.plugin && a.to !== 'opencode' && a.to !== 'kilo') return '--plugin goes with --to opencode or kilo';
  if (a.enforce !== undefined && a.to !== 'cursor') return '--enforce goes with --to cursor';
  if (a.pluginUrl !== undefined && !a.plugin) return '--plugin-url goes with --plugin';
  if (a.pluginUrl !== undefined && !/^https?:\/\/[^/?#]+\/[^?#]*$/.test(a.pluginUrl)) return `--plugin-url ${a.pluginUrl} is not an http(s) URL with a path and no query, such as http://127.0.0.1:3000/hooks/claude-code`;
  if (a.enforce !== undefined && (f.all.get('--enforce')?.length ?? 0) > 1) return '--enforce takes one mode: Cursor runs every hook on every call, so two would hold each chat to both modes';
  if (a.enforce !== undefined && a.modes.length > 0 && !a.modes.includes(a.enforce)) return `--enforce ${a.enforce} names a mode this export leaves out; add --mode ${a.enforce}`;
  return a;
}

async function readIfExists(path: string): Promise<string | null> {
  try { return await readFile(path, 'utf8'); } catch (err) {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return null;
    throw err;
  }
}

export async function runExport(argv: string[], io: ExportIo): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') { io.err(`export: ${args} (see roo-modes-server export --help)\n`); return 2; }
  if (args.help) { io.out(USAGE); return 0; }
  const target = args.to!;
  const projectRoot = resolve(expandHome(args.projectRoot ?? (io.env.ROO_PROJECT_ROOT || '.'), io.env));
  const outDir = resolve(expandHome(args.out ?? projectRoot, io.env));
  const catalogue = await loadCatalogue({
    projectRoot, configDir: resolve(expandHome(args.configDir ?? (io.env.ROO_CONFIG_DIR || '~/.roo-code'), io.env)),
    globalModesFile: null, convertDocument: convertLegacyRoles,
  });
  const unknown = args.modes.filter((s) => !catalogue.get(s));
  if (unknown.length > 0) { io.err(`export: unknown mode ${unknown.join(', ')}; the modes in force: ${catalogue.slugs().join(', ')}\n`); return 2; }
  const modes = args.modes.length > 0 ? [...new Set(args.modes)].map((s) => catalogue.get(s)!) : [...catalogue.modes];
  if (args.enforce !== undefined && !catalogue.get(args.enforce)) { io.err(`export: unknown mode ${args.enforce} for --enforce; the modes in force: ${catalogue.slugs().join(', ')}\n`); return 2; }
  const ctx: ExportContext = { projectRoot, homeDir: expandHome('~', io.env), entryCommand: io.entryCommand, lossy: args.lossy, enforce: args.enforce };

  // A broken mode file is reported, not fatal: its good modes (and the others) still export.
  const report: string[] = catalogue.issues.map((i) => `  problem in the mode files: ${i.file}:${i.line ?? 1}: ${i.message}`);
  let failed = false;
  const seen = new Map<string, string>();
  /** Agent name → slug of each agent file produced, for --plugin. */
  const agents = new Map<string, string>();
  for (const mode of modes) {
    const result = TARGETS[target]!(await prepareMode(mode, ctx), ctx);
    for (const l of result.lost) report.push(`  not carried over (${mode.slug}): ${l}`);
    if (result.refused !== undefined || result.path === undefined || result.text === undefined) {
      report.push(`  refused: ${result.refused ?? mode.slug}`);
      failed = true;
      continue;
    }
    const clash = seen.get(result.path);
    if (clash !== undefined) { report.push(`  refused: ${mode.slug} and ${clash} both become ${result.path}`); failed = true; continue; }
    seen.set(result.path, mode.slug);
    agents.set(mode.slug, mode.slug);
    failed = !(await place(join(outDir, result.path), result.text, args, io, report)) || failed;
  }
  if (args.settings) failed = !(await settings(outDir, modes.filter((m) => m.compiled.edit).map((m) => m.slug), ctx, args, io, report)) || failed;
  if (args.enforce !== undefined) {
    const merged = await mergeJsonFile(join(outDir, CURSOR_HOOKS_FILE), (text) => mergeCursorHooks(text, cursorHookEntry(ctx, args.enforce!)), `preToolUse hook for mode ${args.enforce}`, args.dryRun ? 'dry-run' : 'write');
    if (merged.preview !== undefined) io.out(`==> ${join(outDir, CURSOR_HOOKS_FILE)} <==\n${merged.preview}\n`);
    report.push(`  ${merged.line}`);
    failed = !merged.ok || failed;
  }
  if (args.plugin && agents.size > 0) {
    const path = PLUGIN_PATHS[target as 'opencode' | 'kilo'];
    failed = !(await place(join(outDir, path), openCodePlugin(agents, { entryCommand: ctx.entryCommand, url: args.pluginUrl }), args, io, report)) || failed;
  }
  for (const note of enforcementNotes(target, { enforce: args.enforce, plugin: args.plugin && agents.size > 0 })) report.push(`  enforcement: ${note}`);
  io.out(`export --to ${target} (${modes.length} mode${modes.length === 1 ? '' : 's'}) into ${outDir}:\n${report.join('\n')}\n`);
  return failed ? 1 : 0;
}

/** Writes one file unless it exists (and --force is absent); false when the write failed. */
async function place(file: string, text: string, args: ExportArgs, io: ExportIo, report: string[]): Promise<boolean> {
  const old = await readIfExists(file);
  if (old === text) { report.push(`  unchanged: ${file}`); return true; }
  if (old !== null && !args.force) { report.push(`  kept existing: ${file} (differs; --force overwrites it)`); return true; }
  const verb = old === null ? 'write' : 'overwrite';
  if (args.dryRun) { io.out(`==> ${file} (would ${verb}) <==\n${text}\n`); report.push(`  would ${verb}: ${file}`); return true; }
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, text);
  } catch (err) {
    report.push(`  failed: ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
  report.push(`  ${old === null ? 'wrote' : 'overwrote'}: ${file}`);
  return true;
}

/** Merges the hooks into .claude/settings.json, keeping every other entry and a backup. */
async function settings(outDir: string, slugs: string[], ctx: ExportContext, args: ExportArgs, io: ExportIo, report: string[]): Promise<boolean> {
  const file = join(outDir, SETTINGS_FILE);
  const real = await resolveTarget(file);
  if (typeof real !== 'string') { report.push(`  refused: ${real.refused}`); return false; }
  const old = await readIfExists(real);
  const entries = slugs.map((s) => hookEntry(hookCommand(ctx, s, ['--agent', agentName(s)])));
  let outcome;
  try {
    outcome = mergeHooks(old ?? '', entries, new Set(slugs.map(agentName)));
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    report.push(`  refused: ${file} is not valid JSON (${err.message}); fix it first`);
    return false;
  }
  if (!outcome.ok) { report.push(`  refused: cannot edit ${file} safely: ${outcome.reason}`); return false; }
  if (old !== null && outcome.text === old) { report.push(`  unchanged: ${file}`); return true; }
  if (args.dryRun) { io.out(`==> ${file} (would ${old === null ? 'write' : 'update'}) <==\n${outcome.text}\n`); return true; }
  try {
    await mkdir(dirname(real), { recursive: true });
    const saved = old === null ? null : await backup(real);
    await writeFileAtomic(real, outcome.text);
    report.push(`  ${old === null ? 'wrote' : 'updated'}: ${file} (${slugs.length} hook${slugs.length === 1 ? '' : 's'}${saved ? `; previous version kept as ${saved}` : ''})`);
  } catch (err) {
    report.push(`  failed: ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
  return true;
}
