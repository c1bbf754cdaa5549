// Roo's clean-up of mode-file text before parsing (a leading byte-order mark, typographic look-alikes
// pasted from editors), in one table. Pure text work; it never parses, so it loads no YAML reader.

/** Characters Roo replaces before parsing, one table. */
const ROO_REPLACEMENTS: Readonly<Record<string, string>> = {
  '\u00a0': ' ',
  '\u200b': '', '\u200c': '', '\u200d': '',
  '\u2018': "'", '\u2019': "'",
  '\u201c': '"', '\u201d': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
};

const ROO_CLEAN_PATTERN = /[\u00a0\u200b-\u200d\u2018\u2019\u201c\u201d\u2010-\u2015\u2212]/g;

/** Drops one leading byte-order mark, then applies Roo's character replacements. */
export function cleanRooText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.replace(ROO_CLEAN_PATTERN, (ch) => ROO_REPLACEMENTS[ch] ?? ch);
}
