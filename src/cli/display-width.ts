// How many terminal columns a string takes, for tables that line up names holding emoji or CJK
// text. A terminal gives an emoji or a wide East Asian character two columns, a combining mark or
// a joiner none; counting code points (or UTF-16 units) gets those wrong and shifts every column
// after the name.

// Whole user-perceived characters: a family emoji joined by ZWJ, or a flag, is one cluster.
const SEGMENTER = new Intl.Segmenter('en', { granularity: 'grapheme' });

const EMOJI_SHOWN = /\p{Emoji_Presentation}/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const EMOJI_STYLE = '\uFE0F';
const ZERO_WIDTH = /^[\p{M}\p{Cf}\p{Cc}]+$/u;

/** East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W/F), the ones text meets in practice. */
function wide(cp: number): boolean {
  return (cp >= 0x1100 && cp <= 0x115f) // Hangul Jamo
    || (cp >= 0x2e80 && cp <= 0x303e) // CJK radicals, punctuation
    || (cp >= 0x3041 && cp <= 0x33ff) // kana, CJK symbols
    || (cp >= 0x3400 && cp <= 0x4dbf) // CJK extension A
    || (cp >= 0x4e00 && cp <= 0x9fff) // CJK unified ideographs
    || (cp >= 0xa000 && cp <= 0xa4cf) // Yi
    || (cp >= 0xac00 && cp <= 0xd7a3) // Hangul syllables
    || (cp >= 0xf900 && cp <= 0xfaff) // CJK compatibility ideographs
    || (cp >= 0xfe30 && cp <= 0xfe4f) // CJK compatibility forms
    || (cp >= 0xff00 && cp <= 0xff60) // fullwidth forms
    || (cp >= 0xffe0 && cp <= 0xffe6)
    || (cp >= 0x20000 && cp <= 0x3fffd); // CJK extensions B and later
}

/** Columns one grapheme cluster takes: 0, 1 or 2. */
function clusterWidth(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  // An emoji shown as such: by default (😀, ❓), or a text-style pictograph asked to be one (🏗️ = U+1F3D7 U+FE0F).
  if (EMOJI_SHOWN.test(cluster) || (PICTOGRAPH.test(cluster) && cluster.includes(EMOJI_STYLE))) return 2;
  return wide(cluster.codePointAt(0)!) ? 2 : 1;
}

/** The columns `text` takes in a terminal (one line; no tabs). */
export function displayWidth(text: string): number {
  // Plain ASCII, the usual case, needs no segmenting.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let columns = 0;
  for (const { segment } of SEGMENTER.segment(text)) columns += clusterWidth(segment);
  return columns;
}

/** `text` followed by spaces up to `columns` display columns (unchanged when already as wide). */
export function padToWidth(text: string, columns: number): string {
  return text + ' '.repeat(Math.max(0, columns - displayWidth(text)));
}
