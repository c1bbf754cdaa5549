// Bytes of large messages in memory that goes back to the system when they are freed. glibc's malloc
// serves a block from its own heap once a block of that size or larger was freed (its mmap
// threshold rises to the freed size, up to 32 MiB), and a heap's freed middle stays part of the
// process: after 200 clients left 6 MB answers unread, RSS stayed 60–130% above idle. A block of
// at least 32 MiB is always mapped on its own and unmapped when freed; only the pages written count
// in RSS, so the unused rest costs address space, not memory. Elsewhere (other systems count a
// block's whole size against the commit limit) a message is encoded as usual.

/** glibc's largest mmap threshold on 64-bit systems: a request this large is always mapped on its own. */
export const MAPPED_BLOCK = 32 * 1024 * 1024;

/** Text or bytes past this are large messages (smaller ones come from Node's pool or malloc's heap as usual). */
export const LARGE_BYTES = 1024 * 1024;

const mapped = process.platform === 'linux' && process.arch !== 'ia32' && process.arch !== 'arm';

/** `parts` (text as UTF-8, or bytes) in one buffer of their own mapping where that can be had. */
export function largeBytes(parts: readonly (string | Uint8Array)[]): Buffer {
  let bound = 0;
  for (const p of parts) bound += typeof p === 'string' ? p.length * 3 : p.length;
  let buf: Buffer;
  try {
    buf = Buffer.allocUnsafeSlow(mapped ? Math.max(MAPPED_BLOCK, bound) : bound);
  } catch {
    // Address space refused (a strict overcommit limit): the plain way, which may still succeed.
    buf = Buffer.allocUnsafeSlow(bound);
  }
  let at = 0;
  for (const p of parts) {
    if (typeof p === 'string') at += buf.write(p, at, 'utf8');
    else { buf.set(p, at); at += p.length; }
  }
  return buf.subarray(0, at);
}
