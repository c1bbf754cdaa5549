// Reads all of stdin as text for `hook`, which reads one event and answers once. It never reads
// past its bound and never writes anything.
import { readSync } from 'node:fs';

/**
 * All of stdin as text; null past maxBytes. Read straight from fd 0: setting up process.stdin as a
 * stream costs more than the hook's own work. A non-blocking stdin (EAGAIN) falls back to the stream.
 */
export async function readStdin(maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const chunk = Buffer.allocUnsafe(64 * 1024);
  try {
    for (let n; (n = readSync(0, chunk, 0, chunk.length, null)) > 0;) {
      size += n;
      if (size > maxBytes) return null;
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && (err.code === 'EAGAIN' || err.code === 'EWOULDBLOCK'))) throw err;
  }
  for await (const piece of process.stdin) {
    size += (piece as Buffer).length;
    if (size > maxBytes) { process.stdin.destroy(); return null; }
    chunks.push(piece as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
