// The symlink half of project-root confinement: where a path really leads on disk. checkToolUse
// judges the text of a path (pure, synchronous); this asks the file system and never writes.
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** True when `path` (relative to `root`) resolves through a symlink to a place outside `root`. */
export async function leadsOutside(path: string, root: string): Promise<boolean> {
  const realRoot = await realpath(root).catch(() => resolve(root));
  // The file may not exist yet (a tool about to create it): its nearest existing ancestor decides.
  let probe = resolve(root, path);
  for (;;) {
    const real = await realpath(probe).catch(() => null);
    if (real !== null) {
      const rel = relative(realRoot, real);
      return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
    }
    const parent = dirname(probe);
    if (parent === probe) return false;
    probe = parent;
  }
}
