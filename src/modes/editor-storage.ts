// Where the editors keep Roo Code's own global modes file (its extension global storage), for
// each OS: one table. Pure path arithmetic from the environment; never reads the file system.
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** The per-user application-data folder of VS Code-family editors (Electron's appData). */
const APP_DATA: Record<'linux' | 'darwin' | 'win32', (env: NodeJS.ProcessEnv, home: string) => string> = {
  linux: (env, home) => env.XDG_CONFIG_HOME || posix.join(home, '.config'),
  darwin: (_env, home) => posix.join(home, 'Library', 'Application Support'),
  win32: (env, home) => env.APPDATA || win32.join(home, 'AppData', 'Roaming'),
};

/** Editors that run the extensions, by their folder under the application data, in lookup order. */
export const EDITOR_FOLDERS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'] as const;

/**
 * Extensions whose global storage holds a global modes file, by extension id (lower case, as the
 * editors name the folder), and the file's place inside it. Add a row for another fork.
 */
export const MODE_EXTENSIONS = {
  roo: { id: 'rooveterinaryinc.roo-cline', file: ['settings', 'custom_modes.yaml'] },
  kilo: { id: 'kilocode.kilo-code', file: ['settings', 'custom_modes.yaml'] },
} as const satisfies Record<string, { id: string; file: readonly string[] }>;

/**
 * Every place one extension's global modes file may be, in editor lookup order:
 * `<appData>/<Editor>/User/globalStorage/<extension>/settings/custom_modes.yaml`.
 */
export function editorModesFiles(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, extension: keyof typeof MODE_EXTENSIONS = 'roo'): string[] {
  const os = platform === 'win32' || platform === 'darwin' ? platform : 'linux';
  const path = os === 'win32' ? win32 : posix;
  const home = (os === 'win32' ? env.USERPROFILE : env.HOME) || homedir();
  const base = APP_DATA[os](env, home);
  const ext = MODE_EXTENSIONS[extension];
  return EDITOR_FOLDERS.map((editor) => path.join(base, editor, 'User', 'globalStorage', ext.id, ...ext.file));
}
