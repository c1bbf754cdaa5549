// A file that an export copies into a project so the agent needs nothing installed (a bundle that the
// build wrote into dist/): its two header lines name the version and the sha256 of the rest. Text only.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { EXPORT_MARK } from './source.js';

/** The package root: this file is src/export/vendored.ts or dist/export/vendored.js. */
const PACKAGE_ROOT = new URL('../../', import.meta.url);

/** What the export writes, and what a reader needs to check it. */
export interface VendoredFile {
  text: string;
  version: string;
  /** sha256 (hex) of what follows the two header lines. */
  sha256: string;
}

const HASH_LINE = /^\/\/ sha256 of the rest of this file: ([0-9a-f]{64})$/;
const VERSION_IN_MARK = new RegExp(`^// ${EXPORT_MARK} ([^ ]+) `);

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The package's version, as package.json says. */
export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error('package.json has no version');
  return pkg.version;
}

/**
 * `dist/<bundle>` with the header: the export mark, the version and `about` (what the file is for),
 * then the hash line. Fails (ENOENT) when the package was not built.
 */
export async function vendoredFile(bundle: string, about: string): Promise<VendoredFile> {
  const [body, version] = await Promise.all([readFile(new URL(`dist/${bundle}`, PACKAGE_ROOT), 'utf8'), packageVersion()]);
  const hash = sha256(body);
  const text = `// ${EXPORT_MARK} ${version} (${about}); export again rather than editing.\n// sha256 of the rest of this file: ${hash}\n${body}`;
  return { text, version, sha256: hash };
}

/** What a vendored file's header says, and whether the rest still hashes to it; null without such a header. */
export function readVendored(text: string): { version: string; sha256: string; intact: boolean } | null {
  const first = text.indexOf('\n');
  const second = text.indexOf('\n', first + 1);
  if (first < 0 || second < 0) return null;
  const version = VERSION_IN_MARK.exec(text.slice(0, first))?.[1];
  const hash = HASH_LINE.exec(text.slice(first + 1, second))?.[1];
  if (version === undefined || hash === undefined) return null;
  return { version, sha256: hash, intact: sha256(text.slice(second + 1)) === hash };
}

/** Why an existing vendored file is not the one this export writes, in words for the report. */
export function staleness(old: string, now: VendoredFile): string {
  const seen = readVendored(old);
  if (seen === null) return 'it has no version and hash header';
  if (!seen.intact) return `it was changed after export ${seen.version} wrote it (its content no longer matches its hash)`;
  if (seen.version !== now.version) return `it is from version ${seen.version}; this export writes ${now.version}`;
  return `its hash is ${seen.sha256.slice(0, 12)}…; this export writes ${now.sha256.slice(0, 12)}…`;
}
