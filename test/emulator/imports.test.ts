// The emulator's files import one way: no file of src/emulator reaches itself through imports
// (type-only imports included). The machine is on top; the QPU reaches it only through QpuHost
// (qpu.ts); the translators read the register layout from layout.ts, not from the running QPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { circles, importGraph } from '../helpers/imports.ts';

const ROOT = fileURLToPath(new URL('../../src/emulator/', import.meta.url));

/** Each file of the emulator with the files it imports (those outside it start with `..`). */
const graph = () => importGraph(ROOT);

test('no file of the emulator imports itself through others', () => {
  const g = graph();
  assert.ok(g.get('machine.ts')!.includes('qpu.ts'), 'the graph is read');
  assert.deepEqual(circles(g), []);
});

test('the QPU and the translators do not import the machine, and the translators not the QPU', () => {
  const g = graph();
  for (const f of ['qpu.ts', 'translate.ts', 'inline.ts', 'blocks.ts', 'code.ts', 'layout.ts', 'wasm/lanes.ts', 'wasm/slots.ts']) assert.ok(!g.get(f)!.includes('machine.ts'), f);
  for (const f of ['translate.ts', 'inline.ts', 'code.ts', 'layout.ts', 'wasm/lanes.ts', 'wasm/slots.ts']) assert.ok(!g.get(f)!.includes('qpu.ts'), f);
});
