// The self-contained check export writes beside an agent's files (roo-modes-check.cjs): where it
// goes for each agent, how hooks start it, its header (version, content hash) and how a copy is told stale.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { EXPORT_MARK } from './source.js';

/** Where each export writes the check, relative to the folder it writes into (a project, or a plugin). */
export const CHECK_PATHS = {
  'claude-code': '.claude/hooks/roo-modes-check.cjs',
  cursor: '.cursor/hooks/roo-modes-check.cjs',
  'claude-code-plugin': 'hooks/roo-modes-check.cjs',
} as const;
export type CheckHost = keyof typeof CHECK_PATHS;

/**
 * The launcher words that run it: `node` from PATH and the file, named the way each agent lets a
 * hook name its own folder. Claude Code fills in ${CLAUDE_PROJECT_DIR} (the project) and
 * ${CLAUDE_PLUGIN_ROOT} (the installed plugin) in exec-form args; Cursor runs a project's hooks in
 * the project root, so a project-relative path is the file there.
 */
export const CHECK_LAUNCHERS: Readonly<Record<CheckHost, readonly string[]>> = {
  'claude-code': ['node', `\${CLAUDE_PROJECT_DIR}/${CHECK_PATHS['claude-code']}`],
  cursor: ['node', CHECK_PATHS.cursor],
  'claude-code-plugin': ['node', `\${CLAUDE_PLUGIN_ROOT}/${CHECK_PATHS['claude-code-plugin']}`],
};

/** The Node the check needs, as the package's engines field says. */
export const CHECK_MIN_NODE = '20';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const HEADER = /^\/\/ roo-modes-check (\S+) sha256:([0-9a-f]{64}) /;

/**
 * The file: two comment lines (the version, the sha256 of what follows them, the export's mark),
 * then the code. The build writes it once (src/build/bundle-hook.mjs); export copies it byte for byte.
 */
export function checkFileText(version: string, code: string): string {
  return [
    `// roo-modes-check ${version} sha256:${sha256(code)} ${EXPORT_MARK}; export again rather than editing.`,
    `// The mode check of roo-modes-server's hook in one file: node roo-modes-check.cjs hook claude-code|cursor …; needs Node ${CHECK_MIN_NODE} or later, nothing else.`,
    code,
  ].join('\n');
}

export interface CheckHeader {
  version: string;
  hash: string;
  /** The code below the header still hashes to `hash` (not edited since it was written). */
  intact: boolean;
}

/** The header of a check file's text, or null when it has none. */
export function readCheckHeader(text: string): CheckHeader | null {
  const m = HEADER.exec(text);
  if (!m) return null;
  const second = text.indexOf('\n', text.indexOf('\n') + 1);
  return { version: m[1]!, hash: m[2]!, intact: second !== -1 && sha256(text.slice(second + 1)) === m[2] };
}

/** How an existing copy differs from what this export writes, for the report. */
export function staleCheckDetail(old: string, fresh: string): string {
  const was = readCheckHeader(old);
  const now = readCheckHeader(fresh);
  if (was === null || now === null) return 'not a roo-modes-check file';
  if (!was.intact) return `edited since it was written: its code no longer hashes to its sha256:${was.hash.slice(0, 12)}`;
  if (was.version === now.version && was.hash === now.hash) return 'its comment lines were edited';
  return `roo-modes-check ${was.version} sha256:${was.hash.slice(0, 12)}; this export writes ${now.version} sha256:${now.hash.slice(0, 12)}`;
}

/** The check as this installation built it (dist/roo-modes-check.cjs); from the sources, the built one beside them. */
export async function builtCheckFile(): Promise<string> {
  const places = [new URL('../roo-modes-check.cjs', import.meta.url), new URL('../../dist/roo-modes-check.cjs', import.meta.url)];
  for (const place of places) {
    try { return await readFile(place, 'utf8'); } catch (err) {
      if (!(err instanceof Error && 'code' in err && err.code === 'ENOENT')) throw err;
    }
  }
  throw new Error('this installation has no dist/roo-modes-check.cjs (run npm run build)');
}
