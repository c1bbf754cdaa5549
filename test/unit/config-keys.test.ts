// Unit tests of the config key sorting (src/config-keys.ts): which unknown keys are typos of known
// ones (refused with the suggestion) and which are someone else's keys (ignored, named).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { likelyMeant, sortConfigKeys } from '../../src/config-keys.js';
import { CONFIG_SCHEMA_URL } from '../../src/config.js';

const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as Record<string, unknown>;

test('takes a misspelling, a swap, another case or separator style for the known key', () => {
  assert.equal(likelyMeant('stirct', ['strict', 'page_size']), 'strict');
  assert.equal(likelyMeant('strct', ['strict']), 'strict');
  assert.equal(likelyMeant('pageSize', ['strict', 'page_size']), 'page_size');
  assert.equal(likelyMeant('Max-Message-Bytes', ['max_message_bytes']), 'max_message_bytes');
  assert.equal(likelyMeant('timout', ['timeout', 'cleanup_interval']), 'timeout');
});

test('does not take a different short word for a typo', () => {
  assert.equal(likelyMeant('name', ['strict', 'max_message_bytes', 'tool_errors', 'page_size']), null);
  assert.equal(likelyMeant('format', ['level', 'file']), null);
  assert.equal(likelyMeant('path', ['host', 'port']), null);
  assert.equal(likelyMeant('description', ['strict', 'tool_errors']), null);
});

test('drops the unknown keys at every depth, keeps the known ones, and names the first typo', () => {
  const sorted = sortConfigKeys({
    $schema: 'x', server: { name: 'n', strict: true }, extra: { a: 1 }, logging: { format: 'f', level: 'INFO' },
  }, schema);
  assert.deepEqual(sorted.known, { $schema: 'x', server: { strict: true }, logging: { level: 'INFO' } });
  assert.deepEqual(sorted.ignored, ['server.name', 'extra', 'logging.format']);
  assert.equal(sorted.typo, null);
  const typo = sortConfigKeys({ sessions: { persistence: { enabeld: true } }, severs: {} }, schema);
  assert.deepEqual(typo.typo, { key: 'sessions.persistence.enabeld', suggestion: 'sessions.persistence.enabled' });
});
