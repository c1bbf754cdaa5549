// What `export --to opencode|kilo --plugin` writes beside the agent files: the plugin and, unless it
// asks serve --http, the decision file the plugin runs in process. It writes nothing else.
import { join } from 'node:path';
import { DECISION_PATHS, PLUGIN_PATHS, openCodePlugin } from '../export/opencode-plugin.js';
import { builtVendored, packageVersion, staleness } from '../export/vendored.js';

export interface PluginWriters {
  /** Writes (or checks) one file the export owns; `explain` says why an old copy is stale. False when refused, stale or failed. */
  place(file: string, text: string, explain?: (old: string) => string): Promise<boolean>;
}

/** Writes the plugin for `agents` (agent name → slug) and its decision file; false when any was refused, stale or failed. */
export async function writeOpenCodePlugin(outDir: string, target: 'opencode' | 'kilo', agents: ReadonlyMap<string, string>, url: string | undefined, w: PluginWriters): Promise<boolean> {
  const version = await packageVersion();
  if (url !== undefined) return w.place(join(outDir, PLUGIN_PATHS[target]), openCodePlugin(agents, { kind: 'http', version, url }));
  const decision = await builtVendored('decision');
  // The decision file first: a plugin whose file is missing blocks every call, the reverse would not.
  const placed = await w.place(join(outDir, DECISION_PATHS[target]), decision.text, (old) => staleness(old, decision.text));
  const plugin = openCodePlugin(agents, { kind: 'in-process', version, target, sha256: decision.header.sha256 });
  return (await w.place(join(outDir, PLUGIN_PATHS[target]), plugin)) && placed;
}
