// The emulator's files import one way: no file of src/emulator reaches itself through imports
// (type-only imports included). The machine is on top; the QPU reaches it only through QpuHost
// (qpu.ts); the translators read the register layout from layout.ts, not from the running QPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../src/emulator/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Each file's imports of other files of the emulator. */
function graph(): Map<string, string[]> {
  const all = files(ROOT);
  const g = new Map<string, string[]>();
  for (const f of all) {
    const text = readFileSync(f, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => resolve(dirname(f), m[1]!));
    g.set(relative(ROOT, f), targets.filter((t) => all.includes(t)).map((t) => relative(ROOT, t)));
  }
  return g;
}

test('no file of the emulator imports itself through others', () => {
  const g = graph();
  assert.ok(g.get('machine.ts')!.includes('qpu.ts'), 'the graph is read');
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') return void cycles.push([...path.slice(path.indexOf(f)), f].join(' -> '));
    state.set(f, 'open');
    for (const t of g.get(f) ?? []) visit(t, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of g.keys()) visit(f, []);
  assert.deepEqual(cycles, []);
});

test('the QPU and the translators do not import the machine, and the translators not the QPU', () => {
  const g = graph();
  for (const f of ['qpu.ts', 'translate.ts', 'inline.ts', 'blocks.ts', 'code.ts', 'layout.ts', 'wasm/lanes.ts', 'wasm/slots.ts']) assert.ok(!g.get(f)!.includes('machine.ts'), f);
  for (const f of ['translate.ts', 'inline.ts', 'code.ts', 'layout.ts', 'wasm/lanes.ts', 'wasm/slots.ts']) assert.ok(!g.get(f)!.includes('qpu.ts'), f);
});
