// Reads the mode-set pointer file (`<modesets dir>/active_mode_set`) for both of its readers: the
// catalogue and the orchestrator_mode_* tools. It never follows a link, never reads more than
// POINTER_MAX_BYTES, and never lets the content of a refused pointer reach a message.
import { readFileSafely, UnsafeFileError } from '../files/safe-read.js';

/** The pointer holds one file name (at most 128 characters) and a newline; 1 KiB leaves room. */
export const POINTER_MAX_BYTES = 1024;

/**
 * The pointer's text, or null when there is no pointer file. Throws UnsafeFileError when the name
 * is a symlink, a FIFO, a device or a directory, or holds more than POINTER_MAX_BYTES.
 */
export async function readPointerFile(path: string): Promise<string | null> {
  try {
    return (await readFileSafely(path, { maxBytes: POINTER_MAX_BYTES, links: 'refuse' })).text;
  } catch (err) {
    if (err instanceof UnsafeFileError && err.reason === 'missing') return null;
    throw err;
  }
}
