// RESP2 on the way out: the reply value type and the encoding of one command as an array of bulk strings.
// It never parses replies (reply-parser.ts does) and never touches a socket.
import type { RedisReplyError } from './errors.js';

/**
 * A parsed reply. Bulk and simple strings are text (UTF-8): the store keeps text. Integers are
 * numbers, or bigints beyond 2^53. An error reply nested in an array (EXEC) stays a value there; a
 * top-level one rejects its command.
 */
export type RespValue = string | number | bigint | null | RedisReplyError | RespValue[];

export type RedisArg = string | number | Buffer;

/** One command in RESP2's request form: `*<n>` then each argument as `$<len>` and its bytes. */
export function encodeCommand(args: readonly RedisArg[]): Buffer {
  // Text arguments (the usual case) become one string encoded once; a Buffer argument needs parts.
  if (!args.some((a) => Buffer.isBuffer(a))) {
    let text = `*${args.length}\r\n`;
    for (const arg of args) {
      const s = String(arg);
      text += `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
    }
    return Buffer.from(text);
  }
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

const CRLF = Buffer.from('\r\n');
