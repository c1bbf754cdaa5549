// Where custom modes come from, in one precedence table over every living dialect's files (Roo,
// Zoo, Kilo): the first row that defines a slug wins. Pure path arithmetic; it never reads a file.
import { join, resolve } from 'node:path';
import { editorModesFiles } from './editor-storage.js';

/** What a row needs to know to name its files. */
export interface SourcePaths {
  projectRoot: string | null;
  configDir: string;
  globalModesFile: string | null;
  homeDir: string;
  platform: NodeJS.Platform;
  /** Where the editors' storage folders are found from (XDG_CONFIG_HOME, APPDATA, HOME). */
  env: NodeJS.ProcessEnv;
}

export interface SourceRow {
  /** Stable name of the row (shown in `modes --json`, used by tests and docs). */
  id: string;
  /** How the catalogue labels the modes of this row. */
  source: 'project' | 'global';
  /** Whether broken YAML is retried as JSON (Roo does this for project files only). */
  jsonFallback: boolean;
  /** `first`: the first existing candidate is the row's file; `all`: every existing one, in order. */
  pick: 'first' | 'all';
  /** Candidate files, most preferred first (empty when the row does not apply). */
  candidates(p: SourcePaths): string[];
  /** For people: what the row is. */
  about: string;
}

/**
 * The precedence table, highest first. The project's `.roomodes` row stands for the active mode
 * set when one is selected (resolveModeFiles decides). Built-ins come after every row.
 */
export const MODE_SOURCES: readonly SourceRow[] = [
  {
    id: 'project-roomodes', source: 'project', jsonFallback: true, pick: 'first',
    about: 'the project .roomodes (Roo, Zoo), or the active mode set',
    candidates: (p) => (p.projectRoot === null ? [] : [join(resolve(p.projectRoot), '.roomodes')]),
  },
  {
    id: 'project-kilocodemodes', source: 'project', jsonFallback: true, pick: 'first',
    about: 'the project .kilocodemodes (Kilo Code 5.x)',
    candidates: (p) => (p.projectRoot === null ? [] : [join(resolve(p.projectRoot), '.kilocodemodes')]),
  },
  {
    id: 'global-config', source: 'global', jsonFallback: false, pick: 'first',
    about: 'this server\'s global file: --global-modes-file, else modes.yaml, else custom_modes.yaml in the config dir, else Roo Code\'s custom_modes.yaml in an editor\'s global storage',
    candidates: (p) => (p.globalModesFile !== null ? [resolve(p.globalModesFile)]
      : [resolve(p.configDir, 'modes.yaml'), resolve(p.configDir, 'custom_modes.yaml'), ...editorModesFiles(p.env, p.platform, 'roo')]),
  },
  {
    id: 'kilo-home', source: 'global', jsonFallback: true, pick: 'first',
    about: 'Kilo Code\'s ~/.kilocodemodes',
    candidates: (p) => [join(p.homeDir, '.kilocodemodes')],
  },
  {
    id: 'kilo-cli', source: 'global', jsonFallback: false, pick: 'first',
    about: 'Kilo Code CLI\'s ~/.kilocode/cli/global/settings/custom_modes.yaml',
    candidates: (p) => [join(p.homeDir, '.kilocode', 'cli', 'global', 'settings', 'custom_modes.yaml')],
  },
  {
    id: 'kilo-editor', source: 'global', jsonFallback: false, pick: 'all',
    about: 'Kilo Code\'s custom_modes.yaml in each editor\'s global storage (kilocode.kilo-code/settings/)',
    candidates: (p) => editorModesFiles(p.env, p.platform, 'kilo'),
  },
];

/** Every file any row could read: what a watcher must keep an eye on. */
export function allCandidates(p: SourcePaths): string[] {
  return MODE_SOURCES.flatMap((row) => row.candidates(p));
}
