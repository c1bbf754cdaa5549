// The errno → words table and the error every writer raises for a write the OS refused: the file
// the caller meant (never a temp name), the reason in words and the code, as an app error (-32004).
// EROFS, ENOSPC and EDQUOT cannot be made on demand here, so their mapping is tested directly;
// a real refusal (a folder in the path that is a file) goes through writeFileAtomic and makeFolder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asTargetError, asWriteError, errnoOf, FileWriteError, WRITE_ERRNO } from '../../src/files/write-errors.js';
import { makeFolder, removeFile, writeFileAtomic, writeFileExclusive } from '../../src/files/atomic-write.js';
import { ERROR_CODES } from '../../src/rpc/errors.js';

const osError = (code: string, path = '/p/.roomodes.123.abc.tmp'): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: something, open '${path}'`), { code, path, syscall: 'open' });

test('each OS refusal of a write is told in words, with its code, naming the file the caller meant', () => {
  const cases: [string, string][] = [
    ['EACCES', 'cannot write /p/.roomodes: permission denied (EACCES)'],
    ['EPERM', 'cannot write /p/.roomodes: operation not permitted (EPERM)'],
    ['EROFS', 'cannot write /p/.roomodes: read-only file system (EROFS)'],
    ['ENOSPC', 'cannot write /p/.roomodes: no space left on the device (ENOSPC)'],
    ['EDQUOT', 'cannot write /p/.roomodes: disk quota exceeded (EDQUOT)'],
  ];
  for (const [code, message] of cases) {
    const err = asWriteError(osError(code), '/p/.roomodes');
    assert.ok(err instanceof FileWriteError, code);
    assert.equal(err.message, message);
    assert.equal(err.code, ERROR_CODES.VALIDATION_ERROR, 'an app error, not -32603');
    const data = err.toWire().data as Record<string, unknown>;
    assert.equal(data.error_type, 'file_not_writable');
    assert.equal(data.path, '/p/.roomodes');
    assert.equal(data.os_error, code);
    assert.equal(data.retryable, code === 'ENOSPC' || code === 'EDQUOT', `${code}: retryable only when space may come back`);
    assert.doesNotMatch(JSON.stringify(err.toWire()), /\.tmp/, 'the temp file is never named');
    assert.equal(errnoOf(err), code, 'the OS code stays readable for callers that branch on it');
  }
});

test('an error that is not an OS refusal of a write passes unchanged', () => {
  const bug = new TypeError('x is undefined');
  assert.equal(asWriteError(bug, '/p/f'), bug);
  const other = osError('EINVAL');
  assert.equal(asWriteError(other, '/p/f'), other);
  assert.equal(WRITE_ERRNO.EINVAL, undefined);
});

test('a refusal about a helper file is told again about the target; one about the target stays', () => {
  const inner = new FileWriteError('/p/.x.1.tmp', 'EROFS');
  const told = asTargetError(inner, '/p/x') as FileWriteError;
  assert.equal(told.message, 'cannot write /p/x: read-only file system (EROFS)');
  assert.equal(asWriteError(inner, '/p/x'), inner, 'asWriteError keeps a precise inner path');
});

test('writeFileAtomic, writeFileExclusive, makeFolder and removeFile refused by the OS name the target, not a temp file, and leave nothing behind', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rms-write-errors-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A file where a folder is expected refuses the write even for root (ENOTDIR).
  writeFileSync(join(dir, 'plain'), 'x');
  const target = join(dir, 'plain', 'mode.yaml');
  for (const write of [() => writeFileAtomic(target, 'a'), () => writeFileExclusive(target, 'a')]) {
    await assert.rejects(write(), (err: unknown) => {
      assert.ok(err instanceof FileWriteError);
      assert.equal(err.message, `cannot write ${target}: a part of the path is a file, not a folder (ENOTDIR)`);
      return true;
    });
  }
  await assert.rejects(makeFolder(join(dir, 'plain', 'sub')), { message: `cannot create the folder ${join(dir, 'plain', 'sub')}: a part of the path is a file, not a folder (ENOTDIR)` });
  // A folder in the way of the rename (EISDIR), and a folder removed as if it were a file.
  const folder = join(dir, 'folder');
  await makeFolder(join(folder, 'inside'));
  await assert.rejects(writeFileAtomic(folder, 'a'), { message: `cannot write ${folder}: a folder is in the way (EISDIR)` });
  await assert.rejects(removeFile(folder), (err: unknown) => err instanceof FileWriteError && err.message.startsWith(`cannot remove ${folder}: `));
  assert.deepEqual(readdirSync(dir).sort(), ['folder', 'plain'], 'no temp file left');
});
