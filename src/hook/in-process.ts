// The hook's decision inside an agent's own process (the OpenCode and Kilo plugin): the modes are
// read once and again only when a mode file changes; each call is judged exactly as `hook` judges it.
// It never allows a call it cannot judge: every failure is an answer that blocks.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_MODESETS_DIR, loadCatalogue, resolveModeFiles, sourcePaths, type Catalogue, type ModeSourcesConfig } from '../modes/catalogue.js';
import { allCandidates } from '../modes/sources.js';
import { toolEventOf } from './event.js';
import { judgeEvent, type Verdict } from './decide.js';

/** A verdict, or why there is none (which blocks the call). */
export type Decision = Verdict | { fail: string };

export interface Decider {
  /** The decision on one call of the agent exported from mode `slug`: `tool` with its arguments as the host passes them. */
  decide(slug: string, tool: string, args: unknown): Promise<Decision>;
}

/**
 * A file written this soon before the modes were read may be written again within the same tick of a
 * coarse clock (FAT keeps two seconds) with the same size: the next call reads the modes again rather
 * than trust that nothing changed, until the files have been still for this long.
 */
const RACY_MS = 2_000;

/** What the modes were read from, and how those files looked just before. */
interface Snapshot {
  catalogue: Catalogue;
  watched: readonly string[];
  signature: string;
  racy: boolean;
}

/**
 * What to look at for `paths`: each file that exists; for one that does not, the deepest folder
 * above it that does (creating the file, or a folder on its way, changes that folder's time), so
 * the editors' storage trees an absent editor would have cost one look, not one per file. Missing
 * files right in the project or the home folder are looked at themselves: those folders change at
 * every new file, and each change would read the modes again.
 */
function watchList(paths: readonly string[], keep: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    let at = path;
    while (statSync(at, { throwIfNoEntry: false }) === undefined && dirname(at) !== at && !keep.includes(dirname(at))) at = dirname(at);
    out.add(statSync(at, { throwIfNoEntry: false }) === undefined ? path : at);
  }
  return [...out];
}

/** Each file's size, modification time and inode ('-' when absent): an editor that renames a new file over the old one changes the inode even within one tick. */
function look(paths: readonly string[], since: number): { signature: string; racy: boolean } {
  let signature = '';
  let racy = false;
  for (const path of paths) {
    let st;
    try { st = statSync(path, { throwIfNoEntry: false }); } catch { st = undefined; }
    if (st === undefined) { signature += '-\n'; continue; }
    signature += `${st.size}:${st.mtimeMs}:${st.ino}\n`;
    if (st.mtimeMs >= since - RACY_MS) racy = true;
  }
  return { signature, racy };
}

/**
 * The decider for the project at `projectRoot`, reading the modes `hook` reads without flags: the
 * project's files (or its active mode set, its documents turned into modes by `convertDocument`, as
 * the hook's are) and the global ones ($ROO_CONFIG_DIR, else ~/.roo-code).
 */
export function createDecider(projectRoot: string, env: NodeJS.ProcessEnv, convertDocument: ModeSourcesConfig['convertDocument']): Decider {
  const root = resolve(projectRoot);
  const home = env.HOME || homedir();
  const dir = env.ROO_CONFIG_DIR || '~/.roo-code';
  const config: ModeSourcesConfig = {
    projectRoot: root, configDir: resolve(dir === '~' || dir.startsWith('~/') ? join(home, dir.slice(1)) : dir),
    globalModesFile: null, convertDocument, env, homeDir: home,
  };
  const sets = join(root, DEFAULT_MODESETS_DIR);
  // Every file a load could read, and the mode-set pointer and folder, whose changes pick another file.
  const always = [...allCandidates(sourcePaths(config)), join(sets, 'active_mode_set'), join(sets, 'roles')];
  let current: Snapshot | null = null;
  let loading: Promise<Snapshot> | null = null;

  const load = async (): Promise<Snapshot> => {
    const files = await resolveModeFiles(config);
    const watched = watchList([...new Set([...always, ...files.layers.map((l) => l.file)])], [root, home]);
    // Looked at before reading: a change made during the read shows at the next call.
    const seen = look(watched, Date.now());
    return { catalogue: await loadCatalogue(config), watched, ...seen };
  };
  const catalogue = async (): Promise<Catalogue> => {
    if (current !== null && !current.racy && look(current.watched, Date.now()).signature === current.signature) return current.catalogue;
    loading ??= load().finally(() => { loading = null; });
    current = await loading;
    return current.catalogue;
  };

  return {
    async decide(slug, tool, args) {
      try {
        const modes = await catalogue();
        const mode = modes.get(slug);
        if (mode === undefined) {
          const problems = modes.issues.slice(0, 3).map((i) => `${i.file}:${i.line ?? 1}: ${i.message}`);
          return { fail: `unknown mode "${slug}" in ${root}; the modes in force: ${modes.slugs().join(', ')}${problems.length > 0 ? `; problems in the mode files: ${problems.join('; ')}` : ''}` };
        }
        return judgeEvent(mode, toolEventOf({ tool_name: tool, tool_input: args }), root);
      } catch (err) {
        return { fail: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
