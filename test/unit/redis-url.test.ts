// Unit tests of the Redis URL reader: every part of redis://[user:pass@]host:port[/db] and rediss://,
// and a precise error (never showing the password) for each way a URL can be wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisUrlError } from '../../src/redis/errors.js';
import { parseRedisUrl } from '../../src/redis/url.js';

test('reads host, port, database, credentials and TLS', () => {
  assert.deepEqual(parseRedisUrl('redis://127.0.0.1:6380/2'), { tls: false, host: '127.0.0.1', port: 6380, db: 2, address: '127.0.0.1:6380' });
  assert.deepEqual(parseRedisUrl('rediss://cache.example:7000'), { tls: true, host: 'cache.example', port: 7000, db: 0, address: 'cache.example:7000' });
  assert.deepEqual(parseRedisUrl('redis://localhost'), { tls: false, host: 'localhost', port: 6379, db: 0, address: 'localhost:6379' });
  assert.deepEqual(parseRedisUrl('REDIS://h:1/'), { tls: false, host: 'h', port: 1, db: 0, address: 'h:1' });
  assert.deepEqual(parseRedisUrl('redis://[::1]:6390/15'), { tls: false, host: '::1', port: 6390, db: 15, address: '[::1]:6390' });
  assert.deepEqual(parseRedisUrl('redis://:s%40cr%3At@h:1'), { tls: false, host: 'h', port: 1, db: 0, address: 'h:1', password: 's@cr:t' });
  assert.deepEqual(parseRedisUrl('redis://app:p@ss@h:1/3'),
    { tls: false, host: 'h', port: 1, db: 3, address: 'h:1', username: 'app', password: 'p@ss' }, 'the last @ ends the credentials');
});

test('says what is wrong with a malformed URL', () => {
  const cases: [string, RegExp][] = [
    ['localhost:6379', /does not start with a scheme/],
    ['http://h:1', /the scheme is "http:"/],
    ['redis://h:1/0?db=2', /query or fragment/],
    ['redis://h:1#x', /query or fragment/],
    ['redis://user@h:1', /user name needs a password/],
    ['redis://user:@h:1', /password is empty/],
    ['redis://:%zz@h:1', /password has a malformed percent-escape/],
    ['redis://:1', /host is missing/],
    ['redis://', /host is missing/],
    ['redis://h:0', /port "0" is not a number from 1 to 65535/],
    ['redis://h:65536', /port "65536"/],
    ['redis://h:', /port ""/],
    ['redis://h:12ab', /port "12ab"/],
    ['redis://[::1', /no closing "\]"/],
    ['redis://[::1]x', /unexpected "x"/],
    ['redis://h:1/db1', /path "\/db1" is not a database number/],
    ['redis://h:1/-1', /path "\/-1"/],
    ['redis://h:1/1/2', /path "\/1\/2"/],
  ];
  for (const [url, message] of cases) {
    assert.throws(() => parseRedisUrl(url), (err: unknown) => {
      assert.ok(err instanceof RedisUrlError, url);
      assert.equal(err.kind, 'url');
      assert.equal(err.retryable, false);
      assert.match(err.message, message, url);
      assert.match(err.message, /expected redis:\/\/\[user:pass@\]host:port\[\/db\]/);
      return true;
    });
  }
});

test('never repeats the password in an error', () => {
  for (const url of ['redis://u:hunter2@h:99999', 'redis://:hunter2@:1', 'redis://u:hunter2@h:1/x']) {
    assert.throws(() => parseRedisUrl(url), (err: unknown) => err instanceof RedisUrlError && !err.message.includes('hunter2'));
  }
});
