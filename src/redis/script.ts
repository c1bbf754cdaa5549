// A Lua script run by its SHA-1 (EVALSHA), falling back to EVAL, which also caches it, when Redis
// answers NOSCRIPT (a restart or SCRIPT FLUSH forgot it). It never retries any other failure.
import { createHash } from 'node:crypto';
import type { RedisCommander } from './client.js';
import { RedisReplyError } from './errors.js';
import type { RedisArg, RespValue } from './resp.js';

export class RedisScript {
  readonly source: string;
  readonly sha: string;

  constructor(source: string) {
    this.source = source;
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisCommander, keys: readonly string[], args: readonly RedisArg[] = []): Promise<RespValue> {
    try {
      return await client.command('EVALSHA', this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof RedisReplyError) || err.prefix !== 'NOSCRIPT') throw err;
      return client.command('EVAL', this.source, keys.length, ...keys, ...args);
    }
  }
}
