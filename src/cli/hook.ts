// `roo-modes-server hook claude-code --mode SLUG`: enforces a mode inside Claude Code (or VS Code's
// agent hooks) by answering one PreToolUse event. Fails closed (exit 2) on anything it cannot judge.
import { resolve } from 'node:path';
import { loadCatalogue, loadOneMode } from '../modes/catalogue.js';
import type { PermissionDecision } from '../modes/permissions.js';
import { convertLegacyRoles } from '../modesets/legacy.js';
import { HookInputError, parseToolEvent } from '../hook/event.js';
import { decideHookCall } from '../hook/decide.js';
import { expandHome, readFlags } from './flags.js';

export interface HookIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** stdin as text, or null when it is larger than maxBytes. */
  stdin(maxBytes: number): Promise<string | null>;
}

/** A Write of a large file carries its whole content; past this the event is refused unread. */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;

const USAGE = `Usage: roo-modes-server hook claude-code --mode SLUG [options]

Reads one PreToolUse event (JSON on stdin) and applies the mode's rules to it, the rules of
validate_tool_use: the tool's group, the edit group's file pattern, the project root.
Allowed: exit 0, nothing printed. Refused: exit 0 with a "deny" decision on stdout that names
the mode and the pattern. Malformed input, an unknown mode or any failure: exit 2, reason on
stderr (Claude Code then blocks the call). VS Code's agent hooks speak the same protocol.

  --mode SLUG            the mode to enforce (required)
  --project-root DIR     the project (default: $CLAUDE_PROJECT_DIR, else the event's cwd)
  --agent NAME           judge only calls made by this subagent (the event's agent_type); every
                         other call passes. For hooks in .claude/settings.json, which fire for all.
  --edits-only           judge only edit tools; others pass (for hosts that send every tool)
  --config-dir DIR       global modes folder (default: $ROO_CONFIG_DIR or ~/.roo-code)
  --global-modes-file F  the global modes file to use instead
  -h, --help             this text
`;

interface HookArgs {
  help: boolean; mode?: string; projectRoot?: string; agent?: string; editsOnly: boolean;
  configDir?: string; globalModesFile?: string; target?: string;
}

function parseArgs(argv: readonly string[]): HookArgs | string {
  const f = readFlags(argv, ['-h', '--help', '--edits-only'], ['--mode', '--project-root', '--agent', '--config-dir', '--global-modes-file']);
  if (typeof f === 'string') return f;
  const [target, extra] = f.rest;
  if (target?.startsWith('-')) return `unexpected argument ${target}`;
  if (extra !== undefined) return `unexpected argument ${extra}`;
  const v = (name: string): string | undefined => f.own.get(name) as string | undefined;
  return {
    help: f.own.has('-h') || f.own.has('--help'), editsOnly: f.own.has('--edits-only'), target,
    mode: v('--mode'), projectRoot: v('--project-root'), agent: v('--agent'), configDir: v('--config-dir'), globalModesFile: v('--global-modes-file'),
  };
}

/** Claude Code's answer that stops the call; the reason reaches the model. */
function denial(reason: string): string {
  return `${JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  })}\n`;
}

export async function runHook(argv: string[], io: HookIo): Promise<number> {
  const fail = (why: string): number => { io.err(`roo-modes-server hook: ${why}\n`); return 2; };
  const args = parseArgs(argv);
  if (typeof args === 'string') return fail(`${args} (see roo-modes-server hook --help)`);
  if (args.help) { io.out(USAGE); return 0; }
  if (args.target !== 'claude-code') {
    return fail(args.target === undefined ? 'say which protocol: hook claude-code' : `unknown hook protocol "${args.target}"; use claude-code`);
  }
  if (args.mode === undefined) return fail('--mode is required');
  try {
    return await judge(args, args.mode, io, fail);
  } catch (err) {
    // Whatever went wrong, the call must not slip through: exit 2 blocks it.
    return fail(`cannot judge the call: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function judge(args: HookArgs, slug: string, io: HookIo, fail: (why: string) => number): Promise<number> {
  const text = await io.stdin(MAX_EVENT_BYTES);
  if (text === null) return fail(`the event on stdin is larger than ${MAX_EVENT_BYTES} bytes`);
  let event;
  try {
    event = parseToolEvent(text);
  } catch (err) {
    if (err instanceof HookInputError) return fail(err.message);
    throw err;
  }
  if (args.agent !== undefined && event.agentType !== args.agent) return 0;
  const rootGiven = args.projectRoot ?? (io.env.CLAUDE_PROJECT_DIR || undefined) ?? event.cwd ?? undefined;
  if (rootGiven === undefined) return fail('no project root: pass --project-root, or run under Claude Code (CLAUDE_PROJECT_DIR) with an absolute cwd in the event');
  const projectRoot = resolve(expandHome(rootGiven, io.env));
  const sources = {
    projectRoot,
    configDir: resolve(expandHome(args.configDir ?? (io.env.ROO_CONFIG_DIR || '~/.roo-code'), io.env)),
    globalModesFile: args.globalModesFile === undefined ? null : resolve(expandHome(args.globalModesFile, io.env)),
    convertDocument: convertLegacyRoles,
  };
  // One decision needs one mode: only the files that can define it are parsed (loadOneMode in src/modes/catalogue.ts).
  // When no source has it, the whole catalogue is loaded to list the modes and the problems.
  let mode = await loadOneMode(sources, slug);
  if (!mode) {
    const catalogue = await loadCatalogue(sources);
    mode = catalogue.get(slug);
    if (!mode) {
      const problems = catalogue.issues.slice(0, 3).map((i) => `${i.file}:${i.line ?? 1}: ${i.message}`);
      return fail(`unknown mode "${slug}" in ${projectRoot}; the modes in force: ${catalogue.slugs().join(', ')}${problems.length > 0 ? `; problems in the mode files: ${problems.join('; ')}` : ''}`);
    }
  }

  const first = decideHookCall(mode, event.toolName, event.paths[0], projectRoot);
  if (args.editsOnly && first.group !== 'edit') return 0;
  const decisions: PermissionDecision[] = [first];
  for (const path of event.paths.slice(1)) decisions.push(decideHookCall(mode, event.toolName, path, projectRoot));
  // An edit naming no file is refused by the decision itself when the mode restricts edits.
  const refused = decisions.find((d) => !d.allowed);
  if (!refused) return 0;
  io.out(denial(`Mode ${mode.slug} (roo-modes-server): ${refused.reason}`));
  return 0;
}
