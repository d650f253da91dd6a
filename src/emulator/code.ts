// Generated JavaScript as data: what translate.ts makes of an instruction (InstrCode) and
// blocks.ts puts together into a function. Code is text with references in it: to the QPU's register words (so
// that a block declares a name for each word it uses and a fused lane loop can keep words in
// locals, without reading its own text back) and to the views of the QPU's state (so that a block
// declares only the views it uses). A few statements are left for the block to write, as only the
// block knows how: a wait that leaves the block, and the check that moves a due SFU result into r4.
// Needs: words of the layout (layout.ts). Guarantees: `print` gives the JavaScript, a word as
// `R[name+lane]` (or `F[...]`), `name` the constant blocks.ts declares (declareWords).

import { wordName } from './layout.ts';

/** The views of a QPU's state in a block: the registers as ints and as floats, the flags. */
export type View = 'R' | 'F' | 'Z' | 'N' | 'C';

/**
 * A reference: a register vector in a view, `R[name+lane]` (or `R[name]`, its first word); a
 * vector's name alone, the number of its first word (for an I/O call's argument); or a view.
 */
export interface Ref {
  readonly view?: View;
  /** The vector's first word (layout.ts). */
  readonly word?: number;
  /** The lane: a local (`l` in a lane loop), or a number. */
  readonly lane?: string | number;
  /** The reference is assigned to (a lane loop keeping the word in a local stores it back). */
  readonly write?: true;
}

/** A piece of code: text or a reference. */
export type Piece = string | Ref;
/** Code: pieces one after another. */
export type Code = readonly Piece[];

/** Lane `lane` of vector `word` in the int view; its first word when no lane. */
export const R = (word: number, lane?: string | number): Ref => ({ view: 'R', word, lane });
/** Lane `lane` of vector `word` in the float view. */
export const F = (word: number, lane?: string | number): Ref => ({ view: 'F', word, lane });
/** The same reference, assigned to. */
export const set = (ref: Ref): Ref => ({ view: ref.view, word: ref.word, lane: ref.lane, write: true });
/** The number of vector `word`'s first word, by name (an I/O method's argument). */
export const at = (word: number): Ref => ({ word });
/** The flags' views. */
export const Z: Ref = { view: 'Z' };
export const N: Ref = { view: 'N' };
export const C: Ref = { view: 'C' };

/**
 * Code from a template (`js\`${set(R(SADD, 'l'))} = ${x};\``): numbers and strings become text,
 * references and code stay what they are.
 */
export function js(strings: TemplateStringsArray, ...values: (string | number | boolean | Ref | Code)[]): Code {
  // Translation runs this for every statement it writes, often before V8 has compiled it: plain loops.
  const out: Piece[] = [];
  if (strings[0]) out.push(strings[0]);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v === 'string') {
      if (v) out.push(v);
    } else if (typeof v !== 'object') out.push(String(v));
    else if (Array.isArray(v)) for (let k = 0; k < v.length; k++) out.push((v as Code)[k]!);
    else out.push(v as Ref);
    const s = strings[i + 1]!;
    if (s) out.push(s);
  }
  return out;
}

/** A reference as JavaScript. */
export function refText(r: Ref): string {
  if (r.word === undefined) return r.view!;
  const name = wordName(r.word);
  if (!r.view) return name;
  return r.lane === undefined ? `${r.view}[${name}]` : `${r.view}[${name}+${r.lane}]`;
}

/**
 * Code as JavaScript; `local` gives a reference's local instead, where it has one. `seen`, when
 * given, is told every reference printed.
 */
export function print(code: Code, local?: (r: Ref) => string | undefined, seen?: (r: Ref) => void): string {
  let s = '';
  for (let i = 0; i < code.length; i++) {
    const p = code[i]!;
    if (typeof p === 'string') s += p;
    else {
      if (seen) seen(p);
      s += (local && local(p)) ?? refText(p);
    }
  }
  return s;
}

/**
 * A statement of an instruction's code before its lane loop: code, a wait (when `until` is
 * false the QPU must wait for another QPU: the block leaves before the instruction, with status
 * BLOCK), or the check that moves a due SFU result into r4 before r4 is read.
 */
export type Stmt = Code | { readonly until: Code } | { readonly syncR4: true };

export const isWait = (s: Stmt): s is { readonly until: Code } => 'until' in s;
export const isSyncR4 = (s: Stmt): s is { readonly syncR4: true } => 'syncR4' in s;

/** The declaration of the words' names (`const ra1 = 16, r0 = 1024;`), or '' for none. */
export function declareWords(words: Iterable<number>): string {
  const decls = [...words].sort((a, b) => a - b).map((w) => `${wordName(w)} = ${w}`);
  return decls.length ? `const ${decls.join(', ')};` : '';
}

/** One instruction's code: before the lane loop, the loop's body (lane `l`), and after it. */
export interface InstrCode {
  readonly pre: Stmt[];
  readonly loop: Code[];
  readonly post: Code[];
  /** The instruction does anything only when this holds: a conditional branch's condition. */
  taken?: Code;
  /** Only lane arithmetic: its loop can run fused with its neighbours' (no I/O, signals, cross-lane writes). */
  fusable: boolean;
  /** Reads values other lanes produce. */
  crossLane?: boolean;
  /** The lanes the loop must run: 1 when everything it writes takes element 0 only (setups, DMA addresses). */
  lanes?: 1 | 16;
  /** Where in `post` the rotated write of the mul result starts (a rotating instruction). */
  rotationPost?: number;
  /** The locals holding the lanes of each I/O write outside a rotation (set in the lane loop, read after it). */
  ioMasks?: string[];
  /**
   * Reads an I/O register whose value depends on this QPU's clock or on shared units (VPM,
   * vr_busy/vw_busy, vr_wait/vw_wait): it runs alone, at its own time, never hoisted to the start
   * of a fused group.
   */
  io?: boolean;
}
