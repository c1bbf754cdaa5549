// The Redis client's AUTH (password alone and ACL user) and rediss:// against redis-servers of the
// tests' own: credentials from the URL, a refused password reported, TLS verified against its CA.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RedisClient } from '../../src/redis/client.js';
import { RedisConnectionError, RedisReplyError, RedisUnavailableError } from '../../src/redis/errors.js';
import { redisFailure } from '../../src/tasks/redis-replies.js';
import { connectedClient, nextState, ownRedisMissing, startRedis } from '../redis-server.js';

const TLS_DIR = fileURLToPath(new URL('../fixtures/redis-tls/', import.meta.url));

test('AUTH with a password alone, and with an ACL user; a wrong password is reported, not retried blindly', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t, { args: ['--requirepass', 's3cret'] });
  const admin = await connectedClient(t, { url: `redis://:s3cret@127.0.0.1:${redis.port}` });
  assert.equal(await admin.command('ACL', 'WHOAMI'), 'default');
  assert.equal(await admin.command('ACL', 'SETUSER', 'app', 'on', '>app-pass', '~app:*', '+@all'), 'OK');

  const app = await connectedClient(t, { url: `redis://app:app-pass@127.0.0.1:${redis.port}/1` });
  assert.equal(await app.command('ACL', 'WHOAMI'), 'app');
  assert.equal(await app.command('SET', 'app:x', '1'), 'OK');
  await assert.rejects(app.command('SET', 'other', '1'), (e: unknown) => e instanceof RedisReplyError && e.prefix === 'NOPERM');

  const wrong = new RedisClient({ url: `redis://:nope@127.0.0.1:${redis.port}`, backoff: { minMs: 10, maxMs: 50 } });
  t.after(() => wrong.close());
  const event = await nextState(wrong, 'disconnected');
  assert.ok(event.state === 'disconnected' && event.error instanceof RedisReplyError && event.error.prefix === 'WRONGPASS' && event.error.kind === 'auth', String(event));
  // A wrong password is an authentication error, not an outage: waiting does not fix it.
  await assert.rejects(wrong.command('PING'), (e: unknown) => e instanceof RedisUnavailableError && e.kind === 'auth' && !e.retryable
    && /refused the credentials.*WRONGPASS/.test(e.message) && !/retry later/.test(e.message));
  assert.ok(!/nope/.test(wrong.lastError?.message ?? ''), 'the password is not in the message');
  const failure = redisFailure({ address: '127.0.0.1', prefix: 'rms:', timeoutSeconds: 60 }, 'creating a session', wrong.lastError!);
  const data = failure.data as { retryable: boolean; recovery_suggestions: string[] };
  assert.equal(data.retryable, false);
  assert.match(data.recovery_suggestions.join(' '), /fix the user and password in the store URL/);

  // No password where Redis needs one: NOAUTH on the first command, the same kind.
  const none = await connectedClient(t, { url: `redis://127.0.0.1:${redis.port}` });
  await assert.rejects(none.command('PING'), (e: unknown) => e instanceof RedisReplyError && e.prefix === 'NOAUTH' && e.kind === 'auth' && !e.retryable);
});

test('rediss:// speaks TLS and checks the server certificate', { skip: ownRedisMissing }, async (t) => {
  const files = { cert: `${TLS_DIR}cert.pem`, key: `${TLS_DIR}key.pem`, ca: `${TLS_DIR}cert.pem` };
  const redis = await startRedis(t, { tls: files });
  const client = await connectedClient(t, { url: `rediss://localhost:${redis.port}/2`, tls: { ca: readFileSync(files.ca) } });
  assert.equal(await client.command('PING'), 'PONG');
  assert.match(String(await client.command('CLIENT', 'INFO')), /db=2/);

  const untrusting = new RedisClient({ url: `rediss://localhost:${redis.port}`, backoff: { minMs: 10, maxMs: 50 } });
  t.after(() => untrusting.close());
  const event = await nextState(untrusting, 'disconnected');
  assert.ok(event.state === 'disconnected' && event.error instanceof RedisConnectionError && /self[- ]signed/i.test(event.error.message),
    event.state === 'disconnected' ? event.error.message : event.state);
});
