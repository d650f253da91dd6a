// A user's TypeScript module as the command line loads it (`qpu compile`, `qpu run`): imported
// through tsx (registered by bin/qpu.js), with an error while it loads reported in one line at
// the place in the user's file it came from, and the kernels it exports found by name.

import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { frameLocation } from '../dsl/builder.ts';
import type { ParamType } from '../dsl/types.ts';
import { type Kernel, KERNEL_BRAND } from '../runtime/kernel.ts';
import { oneLineEscaped } from '../vc4/asm/text.ts';
import { CliError, EXIT, type Io, readInput } from './io.ts';

export type AnyKernel = Kernel<readonly ParamType[]>;

/** Whether an export is a kernel kernel(...) made. A value whose properties cannot be read (a hostile Proxy) is not. */
export function isKernel(x: unknown): x is AnyKernel {
  try {
    return typeof x === 'function' && (x as { [KERNEL_BRAND]?: unknown })[KERNEL_BRAND] === true;
  } catch {
    return false;
  }
}

/** The properties of a kernel an export has when it is not one (a look-alike: `kernelName`, `ast`, a function's `code`); none for anything else. */
function kernelTraits(x: unknown): string[] {
  if (isKernel(x) || x === null || (typeof x !== 'object' && typeof x !== 'function')) return [];
  try {
    return ['kernelName', 'ast', 'code'].filter((p) => p in (x as object) && (p !== 'code' || typeof x === 'function'));
  } catch {
    return [];
  }
}

/** "it has kernelName, ast and code". */
function having(traits: readonly string[]): string {
  return `it has ${traits.length > 1 ? `${traits.slice(0, -1).join(', ')} and ${traits.at(-1)}` : traits[0]}`;
}

/**
 * Imports the module at `path`. A missing or unreadable file is a file that cannot be read
 * (status 2); an error while it loads, or a top-level await that never settles, is the input's
 * (status 1), said in one line with the place in the user's file.
 */
export async function loadModule(io: Io, path: string, command: string): Promise<Record<string, unknown>> {
  // qpu run's module is the program: an error its code throws is the program's, not a failure to load.
  const program = command === 'run' || command === 'debug';
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
  const lookAlikes = Object.entries(mod)
    .map(([n, v]) => [n, kernelTraits(v)] as const)
    .filter(([, traits]) => traits.length > 0);
  if (name !== undefined && !kernels.some(([n, k]) => n === name || k.kernelName === name)) {
    const hit = lookAlikes.find(([n]) => n === name) ?? lookAlikes.find(([n]) => kernelNameOf(mod[n]) === name);
    if (hit) throw new CliError(`--kernel ${name}: ${path} exports ${hit[0]}, which looks like a kernel (${having(hit[1])}), but was not made by kernel(...)`, EXIT.INPUT);
  }
  if (kernels.length === 0) {
    if (lookAlikes.length)
      throw new CliError(`${path} exports no kernel: ${lookAlikes.map(([n, t]) => `${n} (${having(t)})`).join(', ')} ${lookAlikes.length > 1 ? 'look' : 'looks'} like one, but ${lookAlikes.length > 1 ? 'were' : 'was'} not made by kernel(...)`, EXIT.INPUT);
    throw new CliError(`${path} exports no kernel (make one with kernel(...) and export it)`, EXIT.INPUT);
  }
  if (name !== undefined) {
    const hit = kernels.find(([n, k]) => n === name || k.kernelName === name);
    if (!hit) throw new CliError(`--kernel ${name}: ${path} has no such kernel; it exports: ${kernels.map(([n]) => n).join(', ')}`);
    return hit[1];
  }
  if (kernels.length > 1) throw new CliError(`${path} exports ${kernels.length} kernels (${kernels.map(([n]) => n).join(', ')}): choose one with --kernel`);
  return kernels[0]![1];
}

/** A look-alike's kernelName, if it has a string one. */
function kernelNameOf(x: unknown): string | undefined {
  try {
    const n = (x as { kernelName?: unknown }).kernelName;
    return typeof n === 'string' ? n : undefined;
  } catch {
    return undefined;
  }
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
