// node:test reporter for test/run.mjs: one line per test file, failures in full (with that file's
// output), each skip reason once, and last the plain line `N passed, N failed, N skipped`.
// It only formats events; it never decides the exit code (test/run.mjs does, from that line).
import { basename, join, relative, resolve } from 'node:path';
import { inspect } from 'node:util';

/** Counts the per-file lines and the summary share; suites and file wrappers are not tests. */
const emptyCounts = () => ({ passed: 0, failed: 0, skipped: 0 });

function plural(n, word) { return `${n} ${word}${n === 1 ? '' : 's'}`; }
function summary(c) { return `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`; }
function indent(text, pad) { return text.replace(/\n*$/, '').split('\n').map((l) => pad + l).join('\n'); }

/** test/run.mjs runs compiled copies of the .ts files from a folder of its own: that folder and the repository it mirrors. */
const [compiledTree, compiledFrom] = (process.env.ROO_TEST_COMPILED ?? '').split('\n');

/** The file a test event belongs to, as an absolute path (Node 22+ gives stdout events a relative `file`); a compiled copy as its .ts file. */
function fileOf(data) {
  const f = data.entryFile ?? data.file;
  if (typeof f !== 'string') return undefined;
  const path = resolve(f.startsWith('file://') ? new URL(f).pathname : f);
  if (!compiledTree || !path.startsWith(`${compiledTree}/`)) return path;
  return join(compiledFrom, path.slice(compiledTree.length + 1)).replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts');
}

/** The runner's own event for a whole file, named by its path (absolute or relative, by Node version); never with entryFile. */
function isFileWrapper(data) {
  return data.nesting === 0 && !('entryFile' in data) && data.line === 1 && data.column === 1
    && typeof data.file === 'string' && typeof data.name === 'string'
    && (resolve(data.name) === resolve(data.file) || data.name === basename(data.file));
}

/** What a failed test's error says: the cause node:test wrapped, with its stack and assertion diff. */
function describeError(error) {
  const cause = error && typeof error === 'object' && 'cause' in error && error.cause !== undefined ? error.cause : error;
  return typeof cause === 'string' ? cause : inspect(cause, { depth: 6, colors: false });
}

function newFile(path) {
  return { path, counts: emptyCounts(), names: [], failures: [], output: [], durationMs: undefined, wrapperFailed: false, flushed: false };
}

export default async function* report(source) {
  const files = new Map();
  const skipReasons = new Map();
  const total = emptyCounts();
  let current;
  // How far the run is: test/run.mjs says how many files it gave node:test.
  const fileCount = Number(process.env.ROO_TEST_FILE_COUNT) || undefined;
  let done = 0;

  const fileRecord = (path) => {
    let rec = files.get(path);
    if (!rec) { rec = newFile(path); files.set(path, rec); }
    return rec;
  };

  // Events that node:test reports in order arrive for one file at a time, so a file is finished
  // when another file's ordered event (or the end of the stream) arrives.
  const flush = function* (rec) {
    if (!rec || rec.flushed) return;
    rec.flushed = true;
    if (rec.wrapperFailed && rec.counts.failed === 0) {
      rec.counts.failed = 1;
      rec.failures.push({ title: 'the file failed outside its tests (its process exited with an error)', detail: '' });
    }
    for (const k of Object.keys(total)) total[k] += rec.counts[k];
    const parts = [`${rec.counts.passed} passed`];
    if (rec.counts.failed) parts.push(`${rec.counts.failed} failed`);
    if (rec.counts.skipped) parts.push(`${rec.counts.skipped} skipped`);
    const took = rec.durationMs === undefined ? '' : ` (${(rec.durationMs / 1000).toFixed(1)} s)`;
    const name = relative(process.cwd(), rec.path);
    done++;
    const progress = fileCount === undefined ? '' : `${String(done).padStart(String(fileCount).length)}/${fileCount} `;
    yield `${rec.counts.failed ? 'FAIL' : 'ok  '} ${progress}${name}  ${parts.join(', ')}${took}\n`;
    if (!rec.counts.failed) return;
    for (const f of rec.failures) yield `  ✖ ${f.title}\n${f.detail ? indent(f.detail, '    ') + '\n' : ''}`;
    if (rec.output.length) yield `  output of ${name}:\n${indent(rec.output.join(''), '    | ')}\n`;
  };

  for await (const { type, data } of source) {
    if (type === 'test:summary' || !data) continue;
    const path = fileOf(data);
    if (type === 'test:stdout' || type === 'test:stderr') {
      if (path) fileRecord(path).output.push(data.message);
      continue;
    }
    if (type === 'test:complete' && isFileWrapper(data)) {
      const rec = fileRecord(path);
      rec.durationMs = data.details?.duration_ms;
      if (data.details?.passed === false) rec.wrapperFailed = true;
      continue;
    }
    if (!path || !['test:start', 'test:pass', 'test:fail', 'test:plan', 'test:diagnostic'].includes(type)) continue;
    const rec = fileRecord(path);
    if (current !== rec) { yield* flush(current); current = rec; }
    if (type === 'test:diagnostic') { rec.output.push(`# ${data.message}\n`); continue; }
    if (type === 'test:start') { rec.names.length = data.nesting; rec.names.push(data.name); continue; }
    if (type === 'test:plan' || isFileWrapper(data)) {
      if (type === 'test:fail') rec.wrapperFailed = true;
      continue;
    }
    if (data.details?.type === 'suite') {
      if (type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') {
        rec.counts.failed++;
        rec.failures.push({ title: `${[...rec.names.slice(0, data.nesting), data.name].join(' › ')} (suite)`, detail: describeError(data.details.error) });
      }
      continue;
    }
    const skip = data.skip ?? data.todo;
    if (skip !== undefined && skip !== false) {
      rec.counts.skipped++;
      const reason = typeof skip === 'string' && skip ? skip : (data.todo !== undefined ? 'todo' : 'skipped');
      skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1);
      continue;
    }
    if (type === 'test:pass') { rec.counts.passed++; continue; }
    rec.counts.failed++;
    const error = data.details?.error;
    // Positions in TypeScript files are the compiled code's, not the source's: the stack below has them.
    const at = path.endsWith('.ts') ? '' : `:${data.line}:${data.column}`;
    const title = `${[...rec.names.slice(0, data.nesting), data.name].join(' › ')}  (${relative(process.cwd(), path)}${at})`;
    // A parent whose subtests failed adds nothing to what those subtests print.
    rec.failures.push({ title, detail: error?.failureType === 'subtestsFailed' ? '' : describeError(error) });
  }
  yield* flush(current);
  for (const rec of files.values()) yield* flush(rec);
  for (const [reason, n] of skipReasons) yield `skipped ${plural(n, 'test')}: ${reason}\n`;
  yield `${summary(total)}\n`;
}
