// Terminal columns of the strings the CLI's tables hold: emoji take two (also a text-style one
// made emoji by U+FE0F, and ZWJ sequences and flags as one character), wide East Asian text two,
// combining marks none; and the modes table lines its columns up by that width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayWidth, padToWidth } from '../../src/cli/display-width.js';
import { table } from '../../src/cli/modes.js';

test('display width counts emoji and wide characters as two columns, marks and joiners as none', () => {
  const cases: [string, number][] = [
    ['', 0],
    ['code', 4],
    ['💻 Code', 7],
    ['🏗️ Architect', 12], // U+1F3D7 U+FE0F: text style made emoji, two columns
    ['❓ Ask', 6],
    ['🪲', 2],
    ['👩‍💻', 2], // woman, ZWJ, laptop: one character
    ['🇩🇪', 2], // a flag: two regional indicators
    ['✓', 1], // a symbol without emoji presentation
    ['·', 1],
    ['é', 1], // e + combining acute
    ['日本語', 6],
    ['ｗｉｄｅ', 8],
    ['Ünïcödé', 7],
  ];
  for (const [text, columns] of cases) assert.equal(displayWidth(text), columns, JSON.stringify(text));
  assert.equal(padToWidth('💻 Code', 10), '💻 Code   ');
  assert.equal(padToWidth('too wide', 3), 'too wide');
});

test('the modes table starts each column at the same display column, emoji in names or not', () => {
  const out = table([
    ['SLUG', 'NAME', 'SOURCE'],
    ['code', '💻 Code', 'builtin'],
    ['architect', '🏗️ Architect', 'builtin'],
    ['plain', 'Plain', 'project'],
    ['docs', '日本語 docs', 'project'],
  ]);
  const lines = out.split('\n');
  // SOURCE's column: the display width of everything before it is the same on every line.
  const before = lines.map((l) => displayWidth(l.slice(0, l.lastIndexOf(' ') + 1)));
  assert.equal(new Set(before).size, 1, out);
  assert.equal(lines[0], `SLUG       NAME          SOURCE`);
});
