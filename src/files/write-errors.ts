// What a failed write says. The OS reports a refused write as a short code (EACCES, EROFS, …) on an
// error whose message names whatever file the syscall touched, often a temp file the caller never
// heard of. Every writer turns such a failure into one FileWriteError that names the file the
// caller meant and says the reason in words; the doors then answer it as an app error (-32004)
// and the CLI prints its message as one line.
import { ValidationError } from '../rpc/errors.js';

/**
 * The OS errors that mean "this file cannot be written here", in words, and whether trying again
 * later may work without anyone changing the file system's permissions or layout.
 */
export const WRITE_ERRNO: Readonly<Record<string, { words: string; retryable: boolean }>> = {
  EACCES: { words: 'permission denied', retryable: false },
  ENOENT: { words: 'a folder on the path does not exist', retryable: false },
  EPERM: { words: 'operation not permitted', retryable: false },
  EROFS: { words: 'read-only file system', retryable: false },
  ENOSPC: { words: 'no space left on the device', retryable: true },
  EDQUOT: { words: 'disk quota exceeded', retryable: true },
  ENOTDIR: { words: 'a part of the path is a file, not a folder', retryable: false },
  EISDIR: { words: 'a folder is in the way', retryable: false },
  ENAMETOOLONG: { words: 'the name is too long', retryable: false },
  ELOOP: { words: 'too many symbolic links in the path', retryable: false },
  EMFILE: { words: 'too many open files in this process', retryable: true },
  ENFILE: { words: 'too many open files on this system', retryable: true },
  EIO: { words: 'input/output error', retryable: false },
};

/** The OS code of a failed syscall: Node's string `code`, or the one a FileWriteError carries. */
export function errnoOf(err: unknown): string | undefined {
  if (err instanceof FileWriteError) return err.osError;
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** `permission denied (EACCES)`, or null when the code is not one this table explains. */
export function osReason(code: string | undefined): string | null {
  const entry = code === undefined ? undefined : WRITE_ERRNO[code];
  return entry === undefined ? null : `${entry.words} (${code})`;
}

/**
 * A write the OS refused. `path` is the file (or folder) the caller meant to write, not a temp
 * name; `osError` the code, kept in `data.os_error` for programs; nothing about the target changed
 * beyond what the caller's own steps say.
 */
export class FileWriteError extends ValidationError {
  readonly path: string;
  readonly osError: string;
  constructor(path: string, osError: string, action = 'write') {
    const entry = WRITE_ERRNO[osError];
    const words = entry?.words ?? 'the system refused';
    const message = `cannot ${action} ${path}: ${words} (${osError})`;
    super(message, {
      message,
      error_type: 'file_not_writable',
      path,
      os_error: osError,
      os_reason: words,
      retryable: entry?.retryable ?? false,
      recovery_suggestions: [entry?.retryable === true
        ? `Free space (or quota) where ${path} lives, then retry`
        : `Give the user running the server write access to ${path} and its folder (or point the server at another folder), then retry`],
    });
    this.path = path;
    this.osError = osError;
  }
}

/**
 * `err` as a FileWriteError about `path` when its OS code is one the table explains; anything
 * else (a bug, an error we raised ourselves) is returned unchanged for the caller to rethrow.
 */
export function asWriteError(err: unknown, path: string, action = 'write'): unknown {
  if (err instanceof FileWriteError) return err;
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  return code !== undefined && WRITE_ERRNO[code] !== undefined ? new FileWriteError(path, code, action) : err;
}

/**
 * Like asWriteError, but a FileWriteError about a helper file (a temp file beside the target) is
 * told again about `path` itself: the caller asked to write `path` and knows no other name.
 */
export function asTargetError(err: unknown, path: string, action = 'write'): unknown {
  return err instanceof FileWriteError && err.path !== path ? new FileWriteError(path, err.osError, action) : asWriteError(err, path, action);
}

/** Runs a write step; a refusal by the OS comes out as a FileWriteError naming `path`. */
export async function writing<T>(path: string, step: () => Promise<T>, action = 'write'): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw asWriteError(err, path, action);
  }
}
