// The lease's fence at the commit point: a writer whose lease would run out before its rename
// finishes writes nothing (and says so), one with time to spare writes. Against a real redis-server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withModeFileLock } from '../../src/authoring/mode-file-lock.js';
import { writeModeFile } from '../../src/authoring/mode-writes.js';
import { checkFence } from '../../src/authoring/turn-fence.js';
import { writeFileAtomic } from '../../src/files/atomic-write.js';
import { ModesetLock } from '../../src/modesets/lock.js';
import { ValidationError } from '../../src/rpc/errors.js';
import { RedisLeaseLock, type SharedLeases } from '../../src/authoring/mode-file-lease.js';
import { RedisClient } from '../../src/redis/client.js';
import { redisMissing, testRedis } from '../redis-server.js';

test('a mode-file or mode-set write under a lease too short to cover it writes nothing; with time left it writes', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = new RedisClient({ url: redis.url });
  t.after(() => client.close());
  await client.connected();
  const dir = mkdtempSync(join(tmpdir(), 'rms-fence-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, '.roomodes');
  const write = (leases: SharedLeases): Promise<void> => withModeFileLock(file, () => writeModeFile(file, 'customModes: []\n'), { rooDir: join(dir, '.roo'), leases });

  // Under the 2 s margin the fence asks for: the lease is taken, but not trusted with the rename.
  const short: SharedLeases = { lock: new RedisLeaseLock(client, { replica: 'short', leaseMs: 1000, prefix: 'fence-test:' }), nameOf: () => 'project:.roomodes' };
  await assert.rejects(write(short), (err: unknown) => {
    assert.ok(err instanceof ValidationError, String(err));
    const data = err.data as { error_type: string; written: boolean; retryable: boolean };
    assert.equal(data.error_type, 'busy');
    assert.equal(data.written, false);
    assert.equal(data.retryable, true);
    return true;
  });
  assert.equal(existsSync(file), false, 'nothing replaced the mode file');
  assert.deepEqual((await client.command('KEYS', 'fence-test:lease:*')), [], 'the lease was given back');

  // Mode-set writes take the same lease through their own lock, and their replacements are fenced too.
  const pointer = join(dir, 'active_mode_set');
  const setWrite = (leases: SharedLeases): Promise<void> => new ModesetLock({ leases }).run(join(dir, '.modesets.lock'), () => writeFileAtomic(pointer, 'team\n', { beforeReplace: checkFence }));
  await assert.rejects(setWrite(short), (err: unknown) => err instanceof ValidationError && (err.data as { written: boolean }).written === false);
  assert.equal(existsSync(pointer), false, 'nothing replaced the pointer');

  const long: SharedLeases = { lock: new RedisLeaseLock(client, { replica: 'long', prefix: 'fence-test:' }), nameOf: () => 'project:.roomodes' };
  await write(long);
  assert.equal(readFileSync(file, 'utf8'), 'customModes: []\n');
  await setWrite(long);
  assert.equal(readFileSync(pointer, 'utf8'), 'team\n');
});
