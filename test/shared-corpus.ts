// Where the real-world .roomodes corpus lives (../shared/corpus/roomodes, beside the repository)
// and the one skip reason its tests give when it is absent. The corpus is never copied in here.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The corpus folder, with a trailing separator. Third-party files with mixed licences stay outside. */
export const ROOMODES_CORPUS = fileURLToPath(new URL('../../shared/corpus/roomodes/', import.meta.url));

/** false when the corpus is there; otherwise the reason printed once by each test that needs it. */
export const corpusMissing: string | false = existsSync(ROOMODES_CORPUS)
  ? false
  : `the real-world corpus ../shared/corpus/roomodes is not beside this repository (looked for ${ROOMODES_CORPUS})`;
