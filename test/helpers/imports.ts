// The import graph of a source folder, for the tests that hold its files to one direction
// (test/layering.test.ts, test/emulator/imports.test.ts): each file with the files it imports or
// re-exports from (type-only imports included), and the circles in it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Each .ts file under `root` (relative to it) with the files it imports, relative to `root` too (outside it, they start with `..`). */
export function importGraph(root: string): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(root)) {
    const text = readFileSync(f, 'utf8');
    g.set(relative(root, f), [...text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => relative(root, resolve(dirname(f), m[1]!))));
  }
  return g;
}

/** The circles of a graph, each as `a -> b -> a`. */
export function circles(g: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') return void out.push([...path.slice(path.indexOf(f)), f].join(' -> '));
    state.set(f, 'open');
    for (const t of g.get(f) ?? []) if (g.has(t)) visit(t, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of g.keys()) visit(f, []);
  return out;
}
