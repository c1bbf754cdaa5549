// Splits a command line into words the way a POSIX shell would, quotes and backslashes only.
// It never expands anything ($VAR, ~, globs, backticks stay literal) and never runs a shell.

export class ShellWordsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellWordsError';
  }
}

/**
 * Rules (a subset of POSIX sh): whitespace separates words; 'single quotes' keep everything
 * literally; "double quotes" keep everything except that a backslash escapes \ " $ ` and a
 * newline; outside quotes a backslash makes the next character literal (and a backslash-newline
 * disappears). Adjacent pieces join into one word, so `--name="a b"` is one word. An empty pair
 * of quotes yields an empty word.
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new ShellWordsError(`unterminated single quote at column ${i + 1}`);
      word += line.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= line.length) throw new ShellWordsError(`unterminated double quote at column ${i + 1}`);
        const c = line[j]!;
        if (c === '"') break;
        if (c === '\\' && j + 1 < line.length && '\\"$`\n'.includes(line[j + 1]!)) {
          if (line[j + 1] !== '\n') word += line[j + 1];
          j += 2;
          continue;
        }
        word += c;
        j++;
      }
      i = j + 1;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) throw new ShellWordsError('a backslash at the end of the line escapes nothing');
      const next = line[i + 1]!;
      if (next === '\n') {
        // A line continuation: it joins, and does not start a word by itself.
        if (word === '') inWord = false;
      } else {
        word += next;
      }
      i += 2;
    } else {
      word += ch;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
