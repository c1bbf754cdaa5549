// The YAML reader's error type and source position shape, shared by every module of src/yaml.
// It must never import the readers (they import it), so it holds no parsing logic.

/** 1-based line and column of a place in the text that was parsed. */
export interface SourcePosition { line: number; column: number }

/** A located YAML syntax or limit error; the message ends with "at line L, column C". */
export class YamlError extends Error {
  readonly line: number;
  readonly column: number;

  constructor(reason: string, line: number, column: number) {
    super(`${reason} at line ${line}, column ${column}`);
    this.name = 'YamlError';
    this.line = line;
    this.column = column;
  }
}
