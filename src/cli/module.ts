// A user's TypeScript module as the command line loads it (`qpu compile`, `qpu run`): imported
// through tsx (registered by bin/qpu.js), with an error while it loads reported in one line at
// the place in the user's file it came from, and the kernels it exports found by name.

import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { frameLocation } from '../dsl/builder.ts';
import type { ParamType } from '../dsl/types.ts';
import type { Kernel } from '../runtime/kernel.ts';
import { oneLineEscaped } from '../vc4/asm/text.ts';
import { CliError, EXIT, type Io, readInput } from './io.ts';

export type AnyKernel = Kernel<readonly ParamType[]>;

export const isKernel = (x: unknown): x is AnyKernel => typeof x === 'function' && 'ast' in x && 'code' in x && 'kernelName' in x;

/**
 * Imports the module at `path`. A missing or unreadable file is a file that cannot be read
 * (status 2); an error while it loads, or a top-level await that never settles, is the input's
 * (status 1), said in one line with the place in the user's file.
 */
export async function loadModule(io: Io, path: string, command: string): Promise<Record<string, unknown>> {
  // qpu run's module is the program: an error its code throws is the program's, not a failure to load.
  const program = command === 'run';
  readInput(io, path);
  // A module whose top-level await never settles leaves nothing to run: Node would exit (status
  // 13) without a word. Say so instead.
  const unsettled = () => {
    io.err(`qpu ${command}: cannot load ${oneLineEscaped(path)}: it never finished loading (a top-level await that never settles)\n`);
    process.exitCode = EXIT.INPUT;
  };
  process.once('beforeExit', unsettled);
  try {
    return (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (e) {
    const loading = !program || e instanceof SyntaxError || /^ERR_/.test(String((e as { code?: unknown })?.code ?? ''));
    throw new CliError(`${loading ? 'cannot load ' : ''}${path}: ${inUserCode(e)}${moduleHint(e)}`, EXIT.INPUT);
  } finally {
    process.off('beforeExit', unsettled);
  }
}

/** An error thrown by the user's code, in one line, with the place in their file it came from. */
export function inUserCode(e: unknown): string {
  const msg = oneLine(e instanceof Error ? e.message : String(e));
  const at = e instanceof Error ? userFrame(e) : undefined;
  return `${msg}${at && !msg.includes(at) ? ` (at ${at})` : ''}`;
}

/** tsx loads a .ts file outside an ES-module package as CommonJS, which cannot import qpu-ts. */
function moduleHint(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return /require\(\)|ES Module/i.test(msg) ? ' (the module must be an ES module: name it .mts, or put it in a package with "type": "module")' : '';
}

/** The kernels a module exports, by export name. */
export function exportedKernels(mod: Record<string, unknown>): [string, AnyKernel][] {
  return Object.entries(mod).filter(([, v]) => isKernel(v)) as [string, AnyKernel][];
}

/** The exported kernel named `name` (its export name or its kernel name), or the only one. */
export function chooseKernel(mod: Record<string, unknown>, path: string, name: string | undefined): AnyKernel {
  const kernels = exportedKernels(mod);
  if (kernels.length === 0) throw new CliError(`${path} exports no kernel (make one with kernel(...) and export it)`, EXIT.INPUT);
  if (name !== undefined) {
    const hit = kernels.find(([n, k]) => n === name || k.kernelName === name);
    if (!hit) throw new CliError(`--kernel ${name}: ${path} has no such kernel; it exports: ${kernels.map(([n]) => n).join(', ')}`);
    return hit[1];
  }
  if (kernels.length > 1) throw new CliError(`${path} exports ${kernels.length} kernels (${kernels.map(([n]) => n).join(', ')}): choose one with --kernel`);
  return kernels[0]![1];
}

/** A message on one line. */
export function oneLine(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
}

const OWN_SOURCES = fileURLToPath(new URL('../', import.meta.url));

/** The first place in an error's stack outside qpu-ts's sources and Node: where the user's module threw. */
export function userFrame(e: Error): string | undefined {
  for (const line of (e.stack ?? '').split('\n').slice(1)) {
    const at = frameLocation(line);
    if (!at) continue;
    let file = at.file;
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    if (file.startsWith('node:') || file.startsWith(OWN_SOURCES) || /[\\/]node_modules[\\/]/.test(file)) continue;
    return `${file}:${at.line}:${at.col}`;
  }
  return undefined;
}
