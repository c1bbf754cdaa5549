// Bytes of large messages in memory that goes back to the system when they are freed. glibc's malloc
// serves a block from its own heap once a block of that size or larger was freed (its mmap
// threshold rises to the freed size), and a heap's freed middle stays part of the process: after
// 200 clients left 6 MB answers unread, RSS stayed 60–130% above idle. A resizable ArrayBuffer is
// not malloc's: V8 maps its pages itself and unmaps them when it is collected. It is made as large
// as the text could need, written, then shrunk to what was written, so V8 counts the message's
// own size (a block larger than the message made V8 collect after every second large answer).

/** ES2024's resizable ArrayBuffer, which Node 20 has (the project's library types are ES2022). */
interface ResizableBuffer extends ArrayBuffer { resize(byteLength: number): void }
const ResizableBuffer = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableBuffer;

/** Text or bytes past this are large messages (smaller ones come from Node's pool or malloc's heap as usual). */
export const LARGE_BYTES = 1024 * 1024;

/** `parts` (text as UTF-8, or bytes) in one buffer whose memory V8 maps itself. */
export function largeBytes(parts: readonly (string | Uint8Array)[]): Buffer {
  let bound = 0;
  for (const p of parts) bound += typeof p === 'string' ? p.length * 3 : p.length;
  const block = new ResizableBuffer(bound, { maxByteLength: bound });
  const buf = Buffer.from(block, 0, bound);
  let at = 0;
  for (const p of parts) {
    if (typeof p === 'string') at += buf.write(p, at, 'utf8');
    else { buf.set(p, at); at += p.length; }
  }
  block.resize(at);
  // A view of fixed length (one that followed the buffer's length would change with it).
  return Buffer.from(block, 0, at);
}
