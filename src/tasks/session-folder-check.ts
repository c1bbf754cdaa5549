// The start-up check of the session store folder (sessions.persistence.storage_path): it must be a
// writable directory, or creatable in one. It only looks (stat, access); it never creates anything.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

const errno = (err: unknown): string | undefined =>
  err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;

/** What is wrong with `dir` as a store folder, in a few words; null when it can be used. */
export async function storeFolderProblem(dir: string): Promise<string | null> {
  // The folder, or else its nearest existing ancestor, which must let us create the rest.
  let at = dir;
  for (;;) {
    try {
      const st = await stat(at);
      if (!st.isDirectory()) return at === dir ? 'is not a directory' : `cannot be created: ${at} is not a directory`;
      break;
    } catch (err) {
      const code = errno(err);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return `cannot be used (${code ?? String(err)})`;
      const up = dirname(at);
      if (up === at) return 'cannot be created: no parent folder exists';
      at = up;
    }
  }
  try {
    await access(at, constants.W_OK | constants.X_OK | (at === dir ? constants.R_OK : 0));
  } catch (err) {
    const code = errno(err) ?? String(err);
    return at === dir ? `is not writable (${code})` : `cannot be created: ${at} is not writable (${code})`;
  }
  return null;
}
