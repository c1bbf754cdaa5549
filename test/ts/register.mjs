// `node --import ./test/ts/register.mjs`: runs TypeScript test files and the sources they import
// (see hooks.mjs). Source maps on, so that a failure's stack names lines of the .ts files.
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register('./hooks.mjs', import.meta.url);
