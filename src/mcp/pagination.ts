// Opaque cursors for the list methods. Owns only the cursor format; a bad cursor is -32602.
import { InvalidParamsError } from '../rpc/errors.js';

const PREFIX = 'p1:';

export function encodeCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: unknown): number {
  if (cursor === undefined || cursor === null) return 0;
  const bad = (): InvalidParamsError => new InvalidParamsError('Invalid cursor', {
    message: 'params.cursor: expected a nextCursor value returned by this server',
  });
  if (typeof cursor !== 'string' || cursor.length > 64) throw bad();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(PREFIX)) throw bad();
  const n = Number(text.slice(PREFIX.length));
  if (!Number.isSafeInteger(n) || n < 0 || encodeCursor(n) !== cursor) throw bad();
  return n;
}

/** One page of `items` starting at the cursor; nextCursor only when more remain. */
export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): { items: T[]; nextCursor?: string } {
  const start = decodeCursor(cursor);
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { items: page, nextCursor: encodeCursor(end) } : { items: page };
}
