// Hostile input for the fuzz suite (test/hostile/): seeded random text, words and mutations,
// and a bounded loop that fails on anything slower than a hang bound. Seeds are fixed so a
// failure is reproducible; the seed and the input are in the failure's message.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rng } from '../../src/source/generate.ts';

export type Rand = () => number;

/** A seeded generator with the helpers the fuzzers share. */
export class Fuzz {
  private readonly next: Rand;
  constructor(readonly seed: number) {
    this.next = rng(seed);
  }
  /** 0 <= n < k. */
  int(k: number): number {
    return this.next() % k;
  }
  word(): number {
    return this.next() >>> 0;
  }
  chance(p: number): boolean {
    return this.next() / 2 ** 32 < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

/** Names that break lookups in plain objects. */
export const PROTO_NAMES = ['__proto__', ...Object.getOwnPropertyNames(Object.prototype)];

/** Pieces of text that have hurt parsers: control characters, other line ends, odd Unicode, long runs. */
const ODD = ['\0', '\r', '\r\n', '\t', '\u0007', '\u001b[31m', '\u2028', '\uFEFF', '\u{1F600}', '\uD800', 'é', ';', ',', '.', '#', ':', '-', '+', '<<', '>>', '0x', '0x_', '1e+', '1e99', '-0', '3.5e38', '1e-50', '4294967296', '-2147483649', '"', "'", '\\', '@', '%', 'ra', 'rb', 'r', 'r9', 'ra64', 'rb-1', '$', '{', '}', '(', ')', '[', ']'];
const WORDS = ['nop', 'add', 'sub', 'fadd', 'fmul', 'mul24', 'v8max', 'mov', 'ldi', 'bra', 'brr', 'sema', 'or', 'and', 'shr', 'ror', 'ra0', 'rb31', 'r0', 'r4', 'r5', 'unif', 'vpm', 'vw_setup', 'vr_setup', 'tmu0_s', 'vw_wait', 'mutex', 'host_int', 'elem_num', 'qpu_num', '-', 'up', 'down', 'zs', 'nc', 'allz', 'anync', '.tend', '.ldtmu0', '.setf', '.ifz', '.never', '.sf', '.8a', '.16b', ...PROTO_NAMES];

/** A line of token soup: words, registers, suffixes, numbers and odd characters. */
export function soupLine(f: Fuzz): string {
  const parts: string[] = [];
  const n = 1 + f.int(8);
  for (let i = 0; i < n; i++) {
    const k = f.int(10);
    if (k < 5) parts.push(f.pick(WORDS));
    else if (k < 7) parts.push(f.pick(ODD));
    else if (k < 8) parts.push(String(f.word() >> f.int(32)));
    else if (k < 9) parts.push(String.fromCharCode(f.int(0x3000)));
    else parts.push(f.pick(WORDS) + f.pick(['.', ',', ' ', ';', ':']) + f.pick(WORDS));
  }
  return parts.join(f.pick([' ', ', ', '', '\t']));
}

/** The lines of the example programs, to mutate. */
export function exampleLines(): string[] {
  return ['hello', 'mandel', 'vadd'].flatMap((n) => readFileSync(new URL(`../../examples/asm/${n}.qasm`, import.meta.url), 'utf8').split('\n'));
}

/** A line with a few random edits: characters inserted, deleted or replaced, tokens swapped in. */
export function mutate(f: Fuzz, line: string): string {
  let s = line;
  for (let k = 1 + f.int(3); k > 0; k--) {
    const at = f.int(s.length + 1);
    const op = f.int(4);
    if (op === 0) s = s.slice(0, at) + f.pick(ODD) + s.slice(at);
    else if (op === 1) s = s.slice(0, at) + s.slice(at + 1 + f.int(4));
    else if (op === 2) s = s.slice(0, at) + f.pick(WORDS) + s.slice(at + 1);
    else s = s.slice(0, at) + String.fromCharCode(f.int(128)) + s.slice(at);
  }
  return s;
}

/**
 * How long one input may take before it counts as a hang (generous: CI machines are slow and
 * shared; the slowest differential program the suite runs, seed 95005 on 12 QPUs, takes 1.5 s
 * on a quiet 2-core machine, and took 2.05 s on a loaded one).
 */
export const HANG_MS = 5000;

/**
 * Runs `each` on seeds from `first` until `count` inputs or `budgetMs` of wall time, whichever
 * comes first (the suite stays bounded on any machine); fails on any input slower than HANG_MS.
 */
export async function fuzzLoop(first: number, count: number, budgetMs: number, each: (f: Fuzz) => unknown): Promise<number> {
  const start = performance.now();
  let done = 0;
  for (let seed = first; seed < first + count && performance.now() - start < budgetMs; seed++) {
    const t = performance.now();
    await each(new Fuzz(seed));
    const ms = performance.now() - t;
    assert.ok(ms < HANG_MS, `seed ${seed} took ${ms.toFixed(0)} ms (over ${HANG_MS} ms: a hang or a blow-up)`);
    done++;
  }
  return done;
}

/** Fails unless `e` is an error of one of `types` whose message passes `located`. */
export function expectLocated(e: unknown, types: readonly (abstract new (...a: never[]) => Error)[], located: (e: Error) => boolean, input: () => string): void {
  if (!types.some((t) => e instanceof t)) assert.fail(`unexpected ${(e as Error)?.stack ?? String(e)}\ninput: ${input()}`);
  if (!located(e as Error)) assert.fail(`an error without a location: ${(e as Error).message}\ninput: ${input()}`);
}

/** Text shown in a failure message: escaped, and cut when long. */
export function show(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 400 ? j.slice(0, 400) + '...' : j;
}
