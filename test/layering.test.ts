// The source tree's folders depend one way (docs/contributing.md, "Layout and data flow"), and
// no file reaches itself through its imports, type-only imports included. Fails on the tree
// before issue 23 (the emulator's 11-file circle, the interpreter importing the emulator's
// memory, the assembler's two circles).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { circles, importGraph } from './helpers/imports.ts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The folders each folder of src may import, besides itself and vc4 (the chip, which all use). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  vc4: [],
  common: [],
  // The operator table says how each operator lowers: it names the IR's operands, which import only vc4.
  source: ['common', 'compiler/operands.ts'],
  dsl: ['source'],
  compiler: ['source'],
  emulator: ['common'],
  pi: ['common', 'compiler'],
  runtime: ['common', 'source', 'dsl', 'compiler', 'emulator', 'pi'],
  debug: ['common', 'source', 'dsl', 'compiler', 'emulator', 'runtime'],
  cli: ['common', 'source', 'dsl', 'compiler', 'emulator', 'pi', 'runtime', 'debug'],
};

const graph = () => importGraph(SRC);

const folderOf = (f: string) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : '');

test('each folder of src imports only the folders below it', () => {
  const g = graph();
  assert.ok(g.get('runtime/kernel.ts')!.includes('dsl/builder.ts'), 'the graph is read');
  const wrong: string[] = [];
  for (const [f, targets] of g) {
    const from = folderOf(f);
    const allowed = MAY_IMPORT[from];
    if (!allowed) continue; // index.ts, emulator.ts and the like: the package's entry points
    for (const t of targets) {
      const to = folderOf(t);
      if (to === from || to === 'vc4' || allowed.includes(to) || allowed.includes(t)) continue;
      wrong.push(`${f} -> ${t}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('every folder of src is placed in the order', () => {
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(folders.filter((d) => !(d in MAY_IMPORT)), []);
});

test('no file of src imports itself through others', () => {
  assert.deepEqual(circles(graph()), []);
});
