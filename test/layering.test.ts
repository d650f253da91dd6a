// The source tree's folders depend one way (docs/contributing.md, "Layout and data flow"), and
// no file reaches itself through its imports, type-only imports included. Fails on the tree
// before issue 23 (the emulator's 11-file circle, the interpreter importing the emulator's
// memory, the assembler's two circles).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  cli: ['common', 'source', 'dsl', 'compiler', 'emulator', 'pi', 'runtime'],
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Each file of src (relative to it) with the files of src it imports or re-exports from. */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(SRC)) {
    const text = readFileSync(f, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => relative(SRC, resolve(dirname(f), m[1]!)));
    g.set(relative(SRC, f), targets);
  }
  return g;
}

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
  const g = graph();
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') return void circles.push([...path.slice(path.indexOf(f)), f].join(' -> '));
    state.set(f, 'open');
    for (const t of g.get(f) ?? []) visit(t, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of g.keys()) visit(f, []);
  assert.deepEqual(circles, []);
});
