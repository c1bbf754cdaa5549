// What each agent enforces of an exported mode, how, and whether its hooks fail open: the facts
// the export report and --help print (sources: ../shared/reference/hooks.md §2). Text only.
import { PLUGIN_PATHS } from './opencode-plugin.js';
import { CURSOR_HOOKS_FILE } from './cursor-hooks.js';

export interface EnforcementChoice {
  /** (cursor) the mode .cursor/hooks.json enforces, if one was chosen. */
  enforce?: string;
  /** (opencode, kilo) whether the plugin was written. */
  plugin: boolean;
}

const VSCODE = [
  'VS Code: the agent-scoped PreToolUse hook (preview; setting chat.useCustomAgentHooks) runs the same check, but VS Code treats a hook that cannot start, times out or exits with a code other than 0 or 2 as a warning and runs the call: it fails open.',
  'GitHub Copilot CLI: reads .github/hooks/*.json, which this export does not write; its hooks fail open as well (failures are logged and skipped).',
];

/** Agents this command has no target for, with what their hooks could do (for --help). */
export const NO_TARGET = [
  'Codex CLI: not exported. Its PreToolUse hooks (apply_patch, the patch text in tool_input.command) can deny, but fail open: a crash, a timeout or an unparsable answer lets the call run.',
  'Gemini CLI: not exported. Its BeforeTool hooks can deny, but fail open: exit codes other than 0 and 2 only warn.',
] as const;

/** The report's lines for one target. */
export function enforcementNotes(target: string, choice: EnforcementChoice): string[] {
  switch (target) {
    case 'vscode':
      return VSCODE;
    case 'cursor':
      return choice.enforce === undefined
        ? ['Cursor: the rules only describe the limits. --enforce SLUG makes one mode binding through a preToolUse hook in .cursor/hooks.json; it then holds in every agent chat of the project, since Cursor tells a hook no rule or mode.']
        : [`Cursor: ${CURSOR_HOOKS_FILE} runs the hook for mode ${choice.enforce} before every tool call of every agent chat in this project (Cursor tells a hook no rule or mode), with failClosed: a hook that cannot start, crashes or times out blocks the call. The other modes' rules are described only.`];
    case 'opencode':
    case 'kilo': {
      const name = target === 'kilo' ? 'Kilo Code 7' : 'OpenCode';
      return choice.plugin
        ? [`${name}: the agents' permission rules, and ${PLUGIN_PATHS[target]}: before each tool call of an exported agent it asks the hook and throws to block, also when no answer can be had (fails closed).${target === 'kilo' ? ' KILO_PURE=1 skips plugins.' : ''}`]
        : [`${name}: the agents' permission rules (exact globs). --plugin adds ${PLUGIN_PATHS[target]}, which asks the hook before each call of an exported agent and fails closed.`];
    }
    default:
      return [];
  }
}
