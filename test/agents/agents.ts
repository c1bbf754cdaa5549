// The agent CLIs the real-agent tier runs, each pinned to one exact release and installed by
// install.ts into a cache folder outside the project; never a dependency of the project itself.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type AgentId = 'claude-code' | 'opencode' | 'kilo' | 'gemini-cli';

export interface Pin {
  /** The npm package and its exact version (changed on purpose, never by range). */
  package: string;
  version: string;
  /** The command inside the install folder. */
  bin: string;
  /** True when the command is a Node script, run with this Node rather than found on PATH. */
  node: boolean;
}

export const PINS: Record<AgentId, Pin> = {
  // A native binary from a platform package; its engines field asks for Node 22, npm only warns.
  'claude-code': { package: '@anthropic-ai/claude-code', version: '2.1.328', bin: 'node_modules/.bin/claude', node: false },
  // A Bun binary from a platform package.
  opencode: { package: 'opencode-ai', version: '1.18.33', bin: 'node_modules/.bin/opencode', node: false },
  // A Node launcher for a Bun binary; 7.8.1 cannot be installed on Linux (its platform package is missing).
  kilo: { package: '@kilocode/cli', version: '7.7.7', bin: 'node_modules/.bin/kilo', node: true },
  'gemini-cli': { package: '@google/gemini-cli', version: '0.61.0', bin: 'node_modules/.bin/gemini', node: true },
};

export const AGENT_IDS = Object.keys(PINS) as AgentId[];

/** Where the pinned agents live: `${XDG_CACHE_HOME:-~/.cache}/roo-modes-server/agents`, as .ci/run has it. */
export function agentsCache(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'roo-modes-server', 'agents');
}

/** The install folder of one agent. */
export function installDir(id: AgentId): string {
  return join(agentsCache(), `${id}-${PINS[id].version}`);
}

/** The argv prefix that runs one agent, or undefined when it is not installed. */
export function agentCommand(id: AgentId): string[] | undefined {
  const bin = join(installDir(id), PINS[id].bin);
  if (!existsSync(bin)) return undefined;
  return PINS[id].node ? [process.execPath, bin] : [bin];
}

/** How to install the agents and run the tier, for the one skip line. */
export const HOW_TO_RUN = 'node --import tsx test/agents/install.ts && node test/run.mjs test/agents';

/** The skip reason when `ids` are not all installed, else undefined; one wording, so the reporter prints it once. */
export function missingAgents(ids: readonly AgentId[]): string | undefined {
  const missing = ids.filter((id) => agentCommand(id) === undefined);
  return missing.length === 0 ? undefined : `the pinned agent CLIs are not installed in ${agentsCache()}: run ${HOW_TO_RUN}`;
}
