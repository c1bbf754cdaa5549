// Unit tests of where Roo Code's global modes file is looked for in the editors' storage
// (src/modes/editor-storage.ts), on each OS, from the environment alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editorModesFiles, EDITOR_FOLDERS } from '../../src/modes/editor-storage.js';

const TAIL = ['User', 'globalStorage', 'rooveterinaryinc.roo-cline', 'settings', 'custom_modes.yaml'];

test('Linux: under ~/.config, or $XDG_CONFIG_HOME when set, for every editor', () => {
  const files = editorModesFiles({ HOME: '/home/u' }, 'linux');
  assert.equal(files.length, EDITOR_FOLDERS.length);
  assert.equal(files[0], ['/home/u/.config/Code', ...TAIL].join('/'));
  assert.ok(files.includes(['/home/u/.config/Code - Insiders', ...TAIL].join('/')));
  assert.ok(files.includes(['/home/u/.config/VSCodium', ...TAIL].join('/')));
  assert.ok(files.includes(['/home/u/.config/Cursor', ...TAIL].join('/')));
  assert.ok(files.includes(['/home/u/.config/Windsurf', ...TAIL].join('/')));
  assert.equal(editorModesFiles({ HOME: '/home/u', XDG_CONFIG_HOME: '/xdg' }, 'linux')[0], ['/xdg/Code', ...TAIL].join('/'));
});

test('macOS: under ~/Library/Application Support', () => {
  assert.equal(editorModesFiles({ HOME: '/Users/u' }, 'darwin')[3], ['/Users/u/Library/Application Support/Cursor', ...TAIL].join('/'));
});

test('Windows: under %APPDATA%, or the profile\'s AppData\\Roaming', () => {
  assert.equal(editorModesFiles({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')[4], ['C:\\Users\\u\\AppData\\Roaming\\Windsurf', ...TAIL].join('\\'));
  assert.equal(editorModesFiles({ USERPROFILE: 'C:\\Users\\v' }, 'win32')[0], ['C:\\Users\\v\\AppData\\Roaming\\Code', ...TAIL].join('\\'));
});
