// What `export --to claude-code-plugin` writes beside the plugin's agents (the check file aside, see
// export-hooks.ts): its manifest, the hook, the modes file the hook reads, with --marketplace the catalogue; and what
// the report says about it. It writes only through the writer it is given, and edits no agent.
import { join } from 'node:path';
import type { CompiledMode } from '../modes/permissions.js';
import { MIN_CLAUDE_CODE_FAIL_CLOSED } from '../export/claude-code.js';
import { PLUGIN_FILES, PLUGIN_NAME, marketplaceCatalogue, marketplaceName, pluginHooks, pluginManifest, pluginModes } from '../export/claude-plugin.js';
import { CHECK_LAUNCHERS, CHECK_MIN_NODE } from '../export/vendored.js';
import type { Place } from './export-hooks.js';
import { UsageError } from './options.js';

/** --name: a name Claude Code takes for a plugin. */
export function pluginName(value: string): string {
  if (PLUGIN_NAME.test(value)) return value;
  throw new UsageError(`--name ${JSON.stringify(value)}: a plugin name is lowercase letters and digits, words joined by single hyphens, e.g. team-modes`);
}

export interface PluginChoice { name: string; marketplace: boolean }

/** Writes the plugin's files other than its agents; false when one was refused, stale or failed. */
export async function writeClaudePlugin(dir: string, exported: readonly CompiledMode[], choice: PluginChoice, place: Place): Promise<boolean> {
  const { name } = choice;
  const results = [
    await place(join(dir, PLUGIN_FILES.manifest), pluginManifest(name)),
    await place(join(dir, PLUGIN_FILES.hooks), pluginHooks(name)),
    await place(join(dir, PLUGIN_FILES.modes), pluginModes(name, exported)),
    ...(choice.marketplace ? [await place(join(dir, PLUGIN_FILES.marketplace), marketplaceCatalogue(name))] : []),
  ];
  return results.every(Boolean);
}

/** The report's lines: how the plugin enforces the modes, what happens when it cannot, how to install it. */
export function pluginNotes(dir: string, choice: PluginChoice): string[] {
  const { name } = choice;
  return [
    `${PLUGIN_FILES.hooks} holds one PreToolUse hook for every agent of the plugin (agent_type ${name}:<agent>; Claude Code ignores hooks in a plugin agent's own file) running ${CHECK_LAUNCHERS['claude-code-plugin'].join(' ')} on the plugin's own modes (${PLUGIN_FILES.modes}; a project's .roomodes does not change them). Plugin hooks also run in folders Claude Code has not trusted.`,
    `Node ${CHECK_MIN_NODE} or later must be on PATH: where node is missing the hook cannot start, and "onFailure": "block" blocks every edit of these agents from Claude Code ${MIN_CLAUDE_CODE_FAIL_CLOSED}; older versions ignore the key and let it through (fail open)`,
    choice.marketplace
      ? `install, once per person: claude plugin marketplace add <this folder, or the repository holding it>, then claude plugin install ${name}@${marketplaceName(name)}`
      : `try it: claude --plugin-dir ${dir}; --marketplace makes the folder a marketplace a team adds once`,
  ];
}
