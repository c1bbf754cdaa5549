// The Claude Code plugin target (`export --to claude-code-plugin`): its manifest, the marketplace
// catalogue, the one hook that routes each call by the plugin's agent, and the modes file that hook
// reads. Builds text only; the agent files come from claude-code.ts (pluginAgent).
import { modeToPlain } from '../authoring/mode-file-edit.js';
import type { CompiledMode } from '../modes/permissions.js';
import { toYaml } from '../yaml/write.js';
import { hookEntry } from './claude-code.js';
import { EXPORT_MARK } from './source.js';
import { CHECK_LAUNCHERS } from './vendored.js';

/** The files beside the agents, relative to the plugin's folder. */
export const PLUGIN_FILES = {
  manifest: '.claude-plugin/plugin.json',
  marketplace: '.claude-plugin/marketplace.json',
  hooks: 'hooks/hooks.json',
  /** The modes the hook holds the agents to: the plugin's own, whatever the project's .roomodes says. */
  modes: 'roo-modes.yaml',
} as const;

export const DEFAULT_PLUGIN_NAME = 'roo-modes';
/** Claude Code's plugin and marketplace names: lowercase words joined by single hyphens. */
export const PLUGIN_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** The catalogue's name for --marketplace: members install `NAME@<this>`. */
export const marketplaceName = (plugin: string): string => `${plugin}-marketplace`;

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const MARK = `${EXPORT_MARK}; export again rather than editing`;

/** `.claude-plugin/plugin.json`: no version, so Claude Code versions a git-hosted copy by its commit. */
export function pluginManifest(name: string): string {
  return json({ name, description: `Roo Code modes as agents, each held to its mode's file limits by the plugin's hook (${MARK}).` });
}

/** `.claude-plugin/marketplace.json`: this folder as a catalogue of one plugin, itself. */
export function marketplaceCatalogue(name: string): string {
  return json({
    name: marketplaceName(name),
    metadata: { description: `The ${name} plugin, for a team to add once (${MARK}).` },
    owner: { name },
    plugins: [{ name, source: './', description: 'Roo Code modes as agents, with their file limits enforced' }],
  });
}

/**
 * `hooks/hooks.json`: one PreToolUse hook for every agent of the plugin. Plugin agents ignore hooks
 * in their own frontmatter, so this is the only one; it runs inside subagents with agent_type
 * `<plugin>:<agent>`, which `--plugin` matches exactly, and its modes come from the plugin's file.
 */
export function pluginHooks(name: string): string {
  const [command, ...launcher] = CHECK_LAUNCHERS['claude-code-plugin'];
  const handler = {
    type: 'command', command: command!,
    args: [...launcher, 'hook', 'claude-code', '--by-agent', '--plugin', name, '--modes-file', `\${CLAUDE_PLUGIN_ROOT}/${PLUGIN_FILES.modes}`],
    onFailure: 'block',
  };
  return json({ description: `Holds the agents of ${name} to their modes' file limits (${MARK}).`, hooks: { PreToolUse: [hookEntry(handler)] } });
}

/** The modes file: every exported mode as Roo writes it, so the check reads them as it reads a .roomodes. */
export function pluginModes(name: string, modes: readonly CompiledMode[]): string {
  return toYaml({ customModes: modes.map((m) => modeToPlain(m)) }, [
    `${MARK}.`,
    `The modes the agents of plugin ${name} are held to (${PLUGIN_FILES.hooks} reads this file, not the project's modes).`,
  ]);
}
