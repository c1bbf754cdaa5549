// `roo-modes-server hook claude-code|cursor`: enforces a mode inside Claude Code, VS Code's agent
// hooks and Cursor by answering one pre-tool event. Fails closed (exit 2) on anything it cannot judge.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { findProjectRoot } from '../paths/project-root.js';
import { loadCatalogue, readModeLayer, type Catalogue, type LayerCache } from '../modes/catalogue.js';
import { loadOneMode } from '../modes/one-mode.js';
import { compileMode, type CompiledMode } from '../modes/permissions.js';
import { convertLegacyRoles } from '../modesets/legacy.js';
import { HookInputError, parseToolEvent, type ToolEvent } from '../hook/event.js';
import { claudeDenial, claudeDenialJson, cursorDenial, judgeEvent, modeForAgent, unknowableAgent } from '../hook/decide.js';
import { orphanedAgent } from '../hook/exported-agent.js';
import { hookCacheFolder } from '../hook/cache-folder.js';
import { fileLayerCache } from '../hook/layer-cache.js';
import { expandHome, meant, readCommand, type Command, type Option, type Values } from './options.js';

export interface HookIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** stdin as text, or null when it is larger than maxBytes. */
  stdin(maxBytes: number): Promise<string | null>;
  /** stdin is a terminal: someone ran the hook by hand, and would otherwise wait on a silent prompt. */
  stdinIsTerminal?: boolean;
}

/** Said once on stderr when stdin is a terminal, before the hook waits for its event there. */
export const TERMINAL_HINT = 'roo-modes-server hook: waiting for one pre-tool event as JSON on stdin, as the agent sends it (end with Ctrl-D). '
  + 'To try it: echo \'{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"src/a.ts"}}\' | roo-modes-server hook claude-code --mode architect --project-root .';

/**
 * The identity of the hook's code when it runs as the one-file build (roo-modes-check.cjs, which
 * defines it: the sha256 of its code), else undefined. Only that build keeps parsed mode files
 * between calls, each entry under this identity, so another build never reads them.
 */
declare const ROO_MODES_CODE_ID: string | undefined;
const CODE_ID = typeof ROO_MODES_CODE_ID === 'string' ? ROO_MODES_CODE_ID : undefined;

/** A Write of a large file carries its whole content; past this the event is refused unread. */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;

/**
 * Cursor's "no objection". With `failClosed`, Cursor has been seen to block on an answer that
 * carries no decision (empty output), so the hook says allow; Cursor's own approvals still apply
 * after a hook's allow (only its deny is final), so this never skips a prompt the user would see.
 */
const CURSOR_NO_OBJECTION = `${JSON.stringify({ permission: 'allow' })}\n`;

const TARGETS = ['claude-code', 'cursor'] as const;
type Target = (typeof TARGETS)[number];

const OPTIONS = [
  { name: '--mode', kind: 'string', value: 'SLUG', help: 'the mode to enforce' },
  { name: '--by-agent', kind: 'switch', help: `(claude-code) the mode whose exported agent name (the slug lower-cased) is the event's agent_type; no objection outside such a subagent, except an agent file an export wrote whose mode is gone (refused). For one hook in .claude/settings.json that serves every exported agent.` },
  { name: '--project-root', kind: 'path', value: 'DIR', help: `the project (default: $CLAUDE_PROJECT_DIR, for cursor $CURSOR_PROJECT_DIR first; else the nearest folder holding .roomodes, .roo/ or .git up from the event's cwd or first workspace root)` },
  { name: '--agent', kind: 'string', value: 'NAME', help: "judge only calls made by this subagent (the event's agent_type); every other call passes" },
  { name: '--edits-only', kind: 'switch', help: 'judge only edit tools; others pass' },
  { name: '--config-dir', kind: 'path', value: 'DIR', help: 'global modes folder (default: $ROO_CONFIG_DIR or ~/.roo-code)' },
  { name: '--global-modes-file', kind: 'path', value: 'FILE', help: 'the global modes file to use instead' },
  { name: '--modes-file', kind: 'path', value: 'FILE', help: "the modes come from this file alone: no project, global or built-in modes (a Claude Code plugin's own modes, which the project cannot change)" },
  { name: '--plugin', kind: 'string', value: 'NAME', goesWith: { option: '--by-agent' },
    help: "(with --by-agent) judge the agents of this Claude Code plugin only (agent_type NAME:AGENT, the mode exported as AGENT); no objection for any other agent" },
] as const satisfies readonly Option[];

type HookArgs = Values<typeof OPTIONS>;

const COMMAND: Command<typeof OPTIONS> = {
  name: 'hook',
  usage: ['claude-code (--mode SLUG | --by-agent) [options]', 'cursor --mode SLUG [options]'],
  about: `Reads one pre-tool event (JSON on stdin) and applies the mode's rules to it, the rules of
validate_tool_use: the tool's group, the edit group's file pattern, the project root.

claude-code answers Claude Code's PreToolUse event, and the same event as VS Code's agent hooks
and Cursor's third-party hooks send it (their own tool names, camelCase filePath):
  no objection   exit 0, nothing printed (never "allow": the host's own prompts still apply)
  refused        exit 0, a "deny" decision on stdout naming the mode and the pattern
                 (a Cursor-shaped event gets Cursor's answer, below)
  cannot judge   exit 2, reason on stderr (malformed input, an unknown mode, any failure)
cursor answers Cursor's preToolUse event (use it with "failClosed": true in .cursor/hooks.json):
  no objection   exit 0, {"permission":"allow"} on stdout (Cursor still asks where it would)
  refused        exit 2, {"permission":"deny","user_message":…,"agent_message":…} on stdout
                 and the reason on stderr
  cannot judge   exit 2, reason on stderr, nothing on stdout
A tool no agent is known to call gets no objection: VS Code and Cursor send every tool to the hook.`,
  options: OPTIONS,
  operands: true,
  check: usageProblem,
};

/** Why the arguments cannot work together, or null. */
function usageProblem(args: HookArgs): string | null {
  const [target, extra] = args.operands;
  if (target === undefined) return 'say which host: hook claude-code or hook cursor';
  if (!(TARGETS as readonly string[]).includes(target)) return `unknown hook host ${JSON.stringify(target)}; use claude-code or cursor${meant(target, TARGETS)}`;
  if (extra !== undefined) return `unexpected argument ${JSON.stringify(extra)}`;
  if (args.mode !== undefined && args.byAgent) return '--mode and --by-agent exclude each other';
  if (args.byAgent && target === 'cursor') return 'Cursor sends no agent_type: hook cursor takes --mode';
  if (args.byAgent && args.agent !== undefined) return '--by-agent already picks the subagent: drop --agent';
  if (args.mode === undefined && !args.byAgent) return target === 'cursor' ? '--mode is required' : '--mode (or --by-agent) is required';
  if (args.modesFile !== undefined && (args.configDir !== undefined || args.globalModesFile !== undefined)) return `--modes-file is the only source of modes: it does not go with ${args.configDir !== undefined ? '--config-dir' : '--global-modes-file'}`;
  return null;
}

export async function runHook(argv: string[], io: HookIo): Promise<number> {
  const fail = (why: string): number => { io.err(`roo-modes-server hook: ${why}\n`); return 2; };
  const args = readCommand(COMMAND, argv, io);
  if (typeof args === 'number') return args;
  try {
    return await judge(args, io, fail);
  } catch (err) {
    // Whatever went wrong, the call must not slip through: exit 2 blocks it.
    return fail(`cannot judge the call: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function judge(args: HookArgs, io: HookIo, fail: (why: string) => number): Promise<number> {
  if (io.stdinIsTerminal === true) io.err(`${TERMINAL_HINT}\n`);
  const text = await io.stdin(MAX_EVENT_BYTES);
  if (text === null) return fail(`the event on stdin is larger than ${MAX_EVENT_BYTES} bytes`);
  let event: ToolEvent;
  try {
    event = parseToolEvent(text);
  } catch (err) {
    if (err instanceof HookInputError) return fail(err.message);
    throw err;
  }
  const target = args.operands[0] as Target;
  const cursor = target === 'cursor' || event.host === 'cursor';
  const none = (): number => { if (target === 'cursor') io.out(CURSOR_NO_OBJECTION); return 0; };
  if (args.agent !== undefined && event.agentType !== args.agent) return none();
  if (args.byAgent && event.agentType === null) return none();
  // A plugin's agents are `<plugin>:<agent>`: only that exact prefix makes one this plugin's.
  const prefix = args.plugin === undefined ? '' : `${args.plugin}:`;
  if (args.plugin !== undefined && !event.agentType!.startsWith(prefix)) return none();
  const agentType = event.agentType?.slice(prefix.length) ?? null;
  const env = io.env;
  const rootNamed = args.projectRoot
    ?? ((cursor ? env.CURSOR_PROJECT_DIR || undefined : undefined) ?? (env.CLAUDE_PROJECT_DIR || undefined));
  const eventFolder = (cursor ? event.workspaceRoot ?? event.cwd : event.cwd ?? event.workspaceRoot) ?? undefined;
  if (rootNamed === undefined && eventFolder === undefined) return fail('no project root: pass --project-root, or run under the agent (CLAUDE_PROJECT_DIR, CURSOR_PROJECT_DIR) with an absolute cwd or workspace root in the event');
  // Only the event's folder is walked up from (the session may have started in a subfolder); a
  // named root is the project as given. Silent: the agent shows a hook's stderr as its message.
  const projectRoot = rootNamed !== undefined ? resolve(expandHome(rootNamed, env))
    : findProjectRoot(eventFolder!, { homeDir: env.HOME || homedir() }).root;
  const layerCache = CODE_ID === undefined ? undefined
    : fileLayerCache(hookCacheFolder(env, 'hook-parsed'), CODE_ID);
  const sources = {
    projectRoot,
    configDir: resolve(expandHome(args.configDir ?? (env.ROO_CONFIG_DIR || '~/.roo-code'), env)),
    globalModesFile: args.globalModesFile === undefined ? null : resolve(expandHome(args.globalModesFile, env)),
    convertDocument: convertLegacyRoles,
    layerCache,
  };
  const found = args.modesFile !== undefined ? await fileMode(resolve(expandHome(args.modesFile, env)), args.byAgent ? agentType! : args.mode!, args.byAgent, layerCache)
    : args.byAgent ? await agentMode(sources, agentType!, projectRoot, expandHome('~', env)) : await namedMode(sources, args.mode!);
  if (typeof found === 'string') return fail(found);
  if (found === null) return none();
  const verdict = judgeEvent(found, event, projectRoot, args.editsOnly);
  if (!verdict.deny) return none();
  if (!cursor) { io.out(`${claudeDenialJson(verdict.reason)}\n`); return 0; }
  // Cursor blocks on exit 2 whatever it makes of stdout, so a lost answer still blocks; stderr carries the reason too.
  const answer = target === 'cursor' ? cursorDenial(verdict.reason) : { ...cursorDenial(verdict.reason), ...claudeDenial(verdict.reason) };
  io.out(`${JSON.stringify(answer)}\n`);
  io.err(`${verdict.reason}\n`);
  return 2;
}

type Sources = Parameters<typeof loadOneMode>[0];

/** The first lines of the catalogue's problems, for a message. */
const problemsOf = (catalogue: Catalogue): string => {
  const problems = catalogue.issues.slice(0, 3).map((i) => `${i.file}:${i.line ?? 1}: ${i.message}`);
  return problems.length > 0 ? `; problems in the mode files: ${problems.join('; ')}` : '';
};

/**
 * `--mode SLUG`: only the files that can define it are parsed (loadOneMode in src/modes/one-mode.ts).
 * When no source has it, the whole catalogue is loaded to list the modes and the problems.
 */
async function namedMode(sources: Sources, slug: string): Promise<CompiledMode | string> {
  const mode = await loadOneMode(sources, slug);
  if (mode) return mode;
  const catalogue = await loadCatalogue(sources);
  return catalogue.get(slug) ?? `unknown mode "${slug}" in ${sources.projectRoot}; the modes in force: ${catalogue.slugs().join(', ')}${problemsOf(catalogue)}`;
}

/**
 * `--by-agent`: the mode exported as this subagent, or null for any other subagent (Claude Code's
 * own Explore, a hand-written agent). When a mode file with problems (it failed to load, or an entry
 * was skipped) may define it, the answer cannot be known: that fails closed rather than let an
 * exported agent's calls through unjudged. So does an agent file an export wrote whose mode is gone.
 */
async function agentMode(sources: Sources, agentType: string, projectRoot: string, home: string): Promise<CompiledMode | null | string> {
  const exact = await loadOneMode(sources, agentType);
  if (exact) return exact;
  const catalogue = await loadCatalogue(sources);
  return modeForAgent(catalogue.modes, agentType) ?? await unknowableAgent(catalogue, agentType) ?? await orphanedAgent(catalogue, agentType, projectRoot, home);
}

/**
 * `--modes-file FILE`: the mode from that file alone (as the project's .roomodes is read), for the
 * slug or, by agent, the exported agent's name. Whatever is not found there cannot be judged: the
 * file travels with the hook (a plugin's), so a missing mode or file is a broken install.
 */
async function fileMode(file: string, name: string, byAgent: boolean, cache: LayerCache | undefined): Promise<CompiledMode | string> {
  const read = await readModeLayer(file, 'project', true, undefined, cache);
  const modes = read.modes.map((m) => Object.freeze(compileMode(m)));
  const mode = byAgent ? modeForAgent(modes, name) : modes.find((m) => m.slug === name);
  if (mode !== undefined) return mode;
  if (!read.read && read.issues.length === 0) return `the modes file ${file} does not exist`;
  const problems = read.issues.slice(0, 3).map((i) => `${i.file}:${i.line ?? 1}: ${i.message}`);
  return `${byAgent ? `no mode is exported as agent "${name}"` : `no mode "${name}"`} in ${file}${problems.length > 0 ? `; problems: ${problems.join('; ')}` : ''}`;
}
