// What each agent enforces of an exported mode, how, and whether its hooks fail open: the facts
// the export report and --help print (sources: ../shared/reference/hooks.md §2). Text only.
import { DECISION_PATHS, PLUGIN_PATHS } from './opencode-plugin.js';
import { CURSOR_HOOKS_FILE } from './cursor-hooks.js';
import { GEMINI_POLICY_FILE } from './gemini-policy.js';
import { GEMINI_SETTINGS_FILE } from './gemini-settings.js';

export interface EnforcementChoice {
  /** (cursor) the mode .cursor/hooks.json enforces, if one was chosen. */
  enforce?: string;
  /** (opencode, kilo) the plugin written: deciding in process, or asking this URL. */
  plugin?: 'in-process' | string;
}

const VSCODE = [
  'VS Code: the agent-scoped PreToolUse hook (preview; setting chat.useCustomAgentHooks) runs the same check, but VS Code treats a hook that cannot start, times out or exits with a code other than 0 or 2 as a warning and runs the call: it fails open.',
  'GitHub Copilot CLI: reads .github/hooks/*.json, which this export does not write; its hooks fail open as well (failures are logged and skipped).',
];

/** Agents this command has no target for, with what their hooks could do (for --help). */
export const NO_TARGET = [
  'Codex CLI: not exported. Its PreToolUse hooks (apply_patch, the patch text in tool_input.command) can deny, but fail open: a crash, a timeout or an unparsable answer lets the call run.',
] as const;

/** Gemini CLI 0.61 (sources: gemini-cli-core and gemini-cli 0.61.0; gemini-cli issue #18186). */
const GEMINI = [
  `Gemini CLI: ${GEMINI_POLICY_FILE} holds deny rules scoped to each exported subagent: write_file and replace calls whose file_path the mode's pattern does not allow, and the write or shell tools of a mode without the edit or command group. Gemini's policy engine runs in-process, so no check can fail to start; each agent's tools list leaves out the groups its mode lacks.`,
  `Gemini CLI 0.61 ignores policy files in .gemini/policies (its workspace tier is switched off), so ${GEMINI_SETTINGS_FILE} names the file under policyPaths, which loads it at the user tier. Gemini reads a project's settings and agents only in a trusted folder, and asks each user to acknowledge a project agent before it runs. Started with --policy, Gemini ignores policyPaths and nothing here is enforced; without the file, nothing is either, and Gemini says nothing.`,
  'Overrides: admin-tier rules (the system policy folder, --admin-policy, adminPolicyPaths) and user-tier rules of priority 999 loaded before these (~/.gemini/policies, other policyPaths). Below these rules: "always allow" answers, --allowed-tools, tools.allowed, tools.core and YOLO mode.',
  'Stricter than Roo: a file_path with an empty, . or .. segment (one leading ./ is fine), a %, a " or \\, a control character, or a leading @, ~ or drive letter, or inside .gemini/, is refused in a mode with an edit pattern (Gemini decodes %-escapes, drops a leading @ and resolves .., after the policy has looked).',
  'Not enforced by the policy: symbolic links (the rules judge the path as written; the write follows links), the main session (only the subagents are held), and absolute paths outside the project that satisfy a pattern not anchored at the start (Gemini itself refuses paths outside its workspace folders, which include its temp folder and --include-directories).',
];

/** The report's lines for one target. */
export function enforcementNotes(target: string, choice: EnforcementChoice): string[] {
  switch (target) {
    case 'vscode':
      return VSCODE;
    case 'cursor':
      return [
        'Cursor: each mode is a rule and a subagent (.cursor/agents), both describing its limits. Cursor holds a subagent only to readonly (no file writes), written for a mode without the edit group: a subagent has no tool list and no path limits.',
        choice.enforce === undefined
          ? 'Cursor: --enforce SLUG makes one mode binding through a preToolUse hook in .cursor/hooks.json; it then holds in every agent chat of the project, since Cursor tells a hook no rule, mode or subagent.'
          : `Cursor: ${CURSOR_HOOKS_FILE} runs the hook for mode ${choice.enforce} before every tool call of every agent chat in this project, subagents included (Cursor tells a hook no rule, mode or subagent), with failClosed: a hook that cannot start, crashes or times out blocks the call. The other modes' limits are described only.`,
      ];
    case 'opencode':
    case 'kilo': {
      const name = target === 'kilo' ? 'Kilo Code 7' : 'OpenCode';
      const pure = target === 'kilo' ? ' KILO_PURE=1 skips plugins, and with them this check.' : '';
      if (choice.plugin === undefined) {
        return [`${name}: the agents' permission rules (exact globs). --plugin adds ${PLUGIN_PATHS[target]}, which decides before each call of an exported agent inside ${name} and fails closed.`];
      }
      if (choice.plugin !== 'in-process') {
        return [`${name}: the agents' permission rules, and ${PLUGIN_PATHS[target]}: before each tool call of an exported agent it asks ${choice.plugin} and throws to block, also when no answer can be had (fails closed): keep roo-modes-server serve --http running there.${pure}`];
      }
      return [
        `${name}: the agents' permission rules, and ${PLUGIN_PATHS[target]}: before each tool call of an exported agent it decides inside ${name} with ${DECISION_PATHS[target]} (what roo-modes-server hook decides; nothing to install, no process per call) and throws to block. When that file is missing, changed or fails, every call of those agents is blocked (fails closed).${pure}`,
        `${name} drops a plugin that fails to import without a word: the plugin itself imports nothing until its first call. Commit both files; a teammate needs nothing else.`,
      ];
    }
    case 'gemini':
      return GEMINI;
    default:
      return [];
  }
}
