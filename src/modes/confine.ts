// The symlink half of project-root confinement: where a path really leads on disk. checkToolUse
// judges the text of a path (pure, synchronous); this asks the file system and never writes.
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** How long a resolved location is trusted; a link created or changed is seen after at most this. */
const TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

/**
 * How it works: a path is resolved against the root and its nearest existing ancestor is
 * realpath'ed; the path leads outside when that real location is not under the root's real
 * location. Results are cached briefly per absolute path, because a model checks the same files
 * over and over and each realpath is a trip to the thread pool.
 */
export class SymlinkGuard {
  readonly #cache = new Map<string, { real: string | null; at: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) { this.#now = now; }

  /** True when `path` (relative to `root`) resolves through a symlink to a place outside `root`. */
  async leadsOutside(path: string, root: string): Promise<boolean> {
    const realRoot = (await this.#real(resolve(root))) ?? resolve(root);
    // The path is joined as text, never normalised: `link/../x` must be resolved the way the
    // kernel does (the link first, then `..`), or a link to /etc/ssl turns `link/../passwd` into
    // an innocent-looking `passwd`. A path that does not exist yet (a tool about to create it) is
    // judged by its longest existing prefix.
    let probe = isAbsolute(path) ? path : `${root}${sep}${path}`;
    for (;;) {
      const real = await this.#real(probe);
      if (real !== null) {
        const rel = relative(realRoot, real);
        return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
      }
      const cut = probe.lastIndexOf(sep);
      if (cut <= 0) return false;
      probe = probe.slice(0, cut);
    }
  }

  async #real(path: string): Promise<string | null> {
    const now = this.#now();
    const hit = this.#cache.get(path);
    if (hit && now - hit.at < TTL_MS) return hit.real;
    const real = await realpath(path).catch(() => null);
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
    this.#cache.set(path, { real, at: now });
    return real;
  }
}
