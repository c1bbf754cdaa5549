// The SSE stream's resumption rule: a client is resumed only when every event after the one it saw
// is still kept, and only from an event that was sent (a silent gap would lose messages).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOUNDS } from '../../src/bounds.js';
import { SseStream } from '../../src/http/sse.js';

test('a resume is refused past the kept events or ahead of the stream, and allowed where nothing is missing', () => {
  const stream = new SseStream('abc');
  const sent = BOUNDS.http.replayEvents + 20;
  for (let i = 0; i < sent; i++) stream.send(`{"n":${i}}`);
  const oldestKept = sent - BOUNDS.http.replayEvents + 1;
  assert.equal(stream.resumeProblem(sent), null, 'seen everything: nothing to replay');
  assert.equal(stream.resumeProblem(oldestKept - 1), null, 'the next event is the oldest kept');
  assert.match(stream.resumeProblem(oldestKept - 2) ?? '', /no longer kept \(the oldest kept is abc-\d+\)/);
  assert.match(stream.resumeProblem(1) ?? '', /no longer kept/);
  assert.match(stream.resumeProblem(sent + 1) ?? '', /was never sent/);
  assert.equal(new SseStream('new').resumeProblem(0), null, 'a stream with no event yet resumes from 0');
});
