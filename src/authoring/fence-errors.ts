// The answers a fenced write gives when it did not count, or may not have: each a -32004 saying
// whether anything was written and whether to retry. It decides nothing; the fence and the lock call it.
import { ValidationError } from '../rpc/errors.js';
import type { RedisError } from '../redis/errors.js';

/** The write's turn ran out (its lease expired, and maybe another writer took it) before it was recorded. */
export function turnLost(subject: string, lease: string, why: string): ValidationError {
  return new ValidationError(`Nothing was written to ${subject}: this server's turn at it ran out before the write could be recorded; retry`, {
    message: `${why}; nothing was written`,
    error_type: 'busy', retryable: true, written: false, lease, recovery_suggestions: ['Retry: the next turn starts from the file as it is now'],
  });
}

/** The write was recorded, but a change not built on it (a hand edit, a store that forgot) replaced it before it landed. */
export function superseded(subject: string): ValidationError {
  return new ValidationError(`The change to ${subject} did not count: it was recorded, but before it could land a change not built on it replaced the file (edited by hand, or written after the store lost its records); the file holds that change and nothing of this request`, {
    message: 'this write landed after a later change that was not built on it; the later change was put back', error_type: 'superseded', retryable: true, written: false,
    recovery_suggestions: ['Read the modes as they are now, then make the change again if it is still wanted'],
  });
}

/** The write was recorded, but so many writes followed before it landed that the store cannot tell whether they were built on it. */
export function outcomeUnknown(subject: string): ValidationError {
  return new ValidationError(`The change to ${subject} was recorded, but landed so late that the store cannot tell whether it still counts`, {
    message: 'too many writes followed this one before it landed to tell whether they were built on it', error_type: 'outcome_unknown', retryable: false, may_have_run: true,
    recovery_suggestions: ['Read the modes as they are now before repeating the change'],
  });
}

/** A content larger than the store records. */
export function tooLargeToRecord(subject: string, bytes: number, limit: number): ValidationError {
  return new ValidationError(`Nothing was written to ${subject}: ${bytes} bytes is more than the shared store records for one file (${limit})`, {
    message: `the new content is ${bytes} bytes; with a shared store a mode file or mode set is at most ${limit} bytes`, error_type: 'too_large', retryable: false, written: false,
    recovery_suggestions: ['Split the modes over the project and global files, or move long instructions into rules files'],
  });
}

/**
 * Redis failed during a turn. Only a commit whose command was sent (the connection broke or timed
 * out after it) may have recorded the change; any other failure wrote nothing.
 */
export function storeRefusal(err: RedisError, lease: string, subject: string, duringCommit = false): ValidationError {
  const sent = duringCommit && (err.kind === 'connection' || err.kind === 'timeout');
  return new ValidationError(`${sent ? 'The change to' : 'Nothing was written to'} ${subject}${sent ? ' may or may not have been recorded' : ''}: the shared store that orders writers is unavailable (${err.message})`, {
    message: `The turn at "${lease}" failed in the store (${err.kind}): ${err.message}; ${sent ? 'the change may have been recorded, and if so the next turn at the file puts it in place' : 'nothing was written'}`,
    error_type: 'store_unavailable', retryable: err.retryable, ...(sent ? { may_have_run: true } : { written: false }), lease,
    recovery_suggestions: err.retryable
      ? [sent ? 'Read the modes once the store is back before repeating the change' : 'Retry in a moment: the server reconnects to the store by itself']
      : ['Check the store (Redis) and its URL'],
  });
}
