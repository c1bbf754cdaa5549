// The files an export copies into a project from dist/ so the agent needs nothing installed: the
// self-contained check (roo-modes-check.cjs, run by hooks with node) and the OpenCode/Kilo plugin's
// decision code (plugin-decision.cjs, which the plugin loads in process). The build writes each
// with the one header below; export copies it byte for byte, and tells a copy stale by that header.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { EXPORT_MARK } from './mark.js';

/** The package root: this file is src/export/vendored.ts or dist/export/vendored.js. */
const PACKAGE_ROOT = new URL('../../', import.meta.url);

/** The Node the vendored files need, as the package's engines field says. */
export const CHECK_MIN_NODE = '20';

/** Each vendored file: its bundle in dist/, the name its header gives it, and its second header line. */
export const VENDORED = {
  check: {
    bundle: 'roo-modes-check.cjs', name: 'roo-modes-check',
    about: `The mode check of roo-modes-server's hook in one file: node roo-modes-check.cjs hook claude-code|cursor …; needs Node ${CHECK_MIN_NODE} or later, nothing else.`,
  },
  decision: {
    bundle: 'plugin-decision.cjs', name: 'roo-modes-decision',
    about: "The decision code of roo-modes-server's OpenCode/Kilo plugin in one file; the plugin runs it only while the rest of this file hashes to the sha256 it was exported with.",
  },
} as const;
export type VendoredKind = keyof typeof VENDORED;

/** Where each export writes the check, relative to the folder it writes into (a project, or a plugin). */
export const CHECK_PATHS = {
  'claude-code': '.claude/hooks/roo-modes-check.cjs',
  cursor: '.cursor/hooks/roo-modes-check.cjs',
  'claude-code-plugin': 'hooks/roo-modes-check.cjs',
} as const;
export type CheckHost = keyof typeof CHECK_PATHS;

/**
 * The launcher words that run the check: `node` from PATH and the file, named the way each agent
 * lets a hook name its own folder. Claude Code fills in ${CLAUDE_PROJECT_DIR} (the project) and
 * ${CLAUDE_PLUGIN_ROOT} (the installed plugin) in exec-form args; Cursor runs a project's hooks in
 * the project root, so a project-relative path is the file there.
 */
export const CHECK_LAUNCHERS: Readonly<Record<CheckHost, readonly string[]>> = {
  'claude-code': ['node', `\${CLAUDE_PROJECT_DIR}/${CHECK_PATHS['claude-code']}`],
  cursor: ['node', CHECK_PATHS.cursor],
  'claude-code-plugin': ['node', `\${CLAUDE_PLUGIN_ROOT}/${CHECK_PATHS['claude-code-plugin']}`],
};

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** `// NAME VERSION sha256:HASH Exported by roo-modes-server; …`: the first of the two header lines. */
const HEADER = /^\/\/ (\S+) (\S+) sha256:([0-9a-f]{64}) /;

/**
 * A vendored file's text: two comment lines (its name, version and the sha256 of what follows the
 * two lines, with the export's mark; then what it is), then the code.
 */
export function vendoredText(kind: VendoredKind, version: string, code: string): string {
  const { name, about } = VENDORED[kind];
  return `// ${name} ${version} sha256:${sha256(code)} ${EXPORT_MARK}; export again rather than editing.\n// ${about}\n${code}`;
}

/** What a vendored file's header says. */
export interface VendoredHeader {
  name: string;
  version: string;
  sha256: string;
  /** What follows the two header lines still hashes to `sha256` (not edited since it was written). */
  intact: boolean;
}

/** The header of a vendored file's text, or null when it has none. */
export function readVendored(text: string): VendoredHeader | null {
  const m = HEADER.exec(text);
  const second = text.indexOf('\n', text.indexOf('\n') + 1);
  if (!m || second < 0) return null;
  return { name: m[1]!, version: m[2]!, sha256: m[3]!, intact: sha256(text.slice(second + 1)) === m[3] };
}

/** How an existing copy differs from the text this export writes, in words for the report. */
export function staleness(old: string, fresh: string): string {
  const was = readVendored(old);
  const now = readVendored(fresh);
  if (now === null) return 'this export has no vendored file to compare it with';
  if (was === null || was.name !== now.name) return `not a ${now.name} file (no ${now.name} header with a version and a sha256)`;
  if (!was.intact) return `edited since export ${was.version} wrote it: its code no longer hashes to its sha256:${was.sha256.slice(0, 12)}`;
  if (was.version === now.version && was.sha256 === now.sha256) return 'its comment lines were edited';
  return `${was.name} ${was.version} sha256:${was.sha256.slice(0, 12)}; this export writes ${now.version} sha256:${now.sha256.slice(0, 12)}`;
}

/** The package's version, as package.json says. */
export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('package.json has no version');
  return pkg.version;
}

/**
 * A vendored file as this installation built it (dist/<bundle>, header included), and its header;
 * `root` is the package's folder (a test gives another). Fails saying so when there is none, or
 * when its header is missing or no longer matches.
 */
export async function builtVendored(kind: VendoredKind, root: URL = PACKAGE_ROOT): Promise<{ text: string; header: VendoredHeader }> {
  const { bundle } = VENDORED[kind];
  let text: string;
  try { text = await readFile(new URL(`dist/${bundle}`, root), 'utf8'); } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') throw new Error(`this installation has no dist/${bundle} (run npm run build)`);
    throw err;
  }
  const header = readVendored(text);
  if (header === null || !header.intact) throw new Error(`dist/${bundle} has no intact ${VENDORED[kind].name} header (run npm run build)`);
  return { text, header };
}
