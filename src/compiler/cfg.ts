// The control-flow graph of IR: each instruction's successors, the basic blocks and their edges,
// the loops, and what the start reaches. Needs: IR with unique labels, every branch followed by
// its 3 delay slots. Guarantees: control flow as the hardware runs it: a branch takes effect
// after its three delay slots, so the last delay slot is the instruction whose successors are
// the target (and, for a conditional branch, the next instruction); the program end has none.
// Liveness (liveness.ts), loop-invariant code motion (hoist.ts) and the allocator's loop
// weights (regalloc.ts) all read the graph from here.
// Functions (lower-funcs.ts): a call goes to the function's entry; its return, a jump through
// the link register, goes to the instruction after the delay slots of every call of that
// function. Paths that enter from one call and return to another are in the graph too, which
// only makes the analyses more careful: a value live across any call is live through the body.

import type { IrInstr } from './ir.ts';

export interface Block {
  /** The indices of its first and last instructions. */
  readonly first: number;
  readonly last: number;
  /** The blocks control may go to next, by index (none: the end, or falling off the code). */
  readonly succs: readonly number[];
}

export interface Cfg {
  readonly code: readonly IrInstr[];
  /** The successors of each instruction, by index (code.length means "falls off the end"). */
  readonly succs: readonly (readonly number[])[];
  readonly blocks: readonly Block[];
  /** The block of each instruction. */
  readonly blockOf: Int32Array;
}

/** The successors of each IR instruction, by index (code.length means "falls off the end"). */
export function successors(code: readonly IrInstr[]): number[][] {
  const labels = new Map<string, number>();
  code.forEach((i, n) => {
    if (i.op === 'label') labels.set(i.name, n);
  });
  const succs = code.map((i, n) => (i.op === 'end' ? [] : [n + 1]));
  const returns = returnPoints(code);
  code.forEach((i, n) => {
    if (i.op !== 'branch') return;
    const last = n + 3;
    if (i.via) {
      succs[last] = returns.get(i.label) ?? [];
      return;
    }
    const target = labels.get(i.label);
    if (target === undefined) throw new Error(`internal: branch to unknown label ${i.label}`);
    succs[last] = i.cond === 'always' ? [target] : [n + 4, target];
  });
  return succs;
}

/** For each function's entry label, where its calls return: the instruction after each call's delay slots. */
export function returnPoints(code: readonly IrInstr[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  code.forEach((i, n) => {
    if (i.op === 'branch' && i.link) out.set(i.label, [...(out.get(i.label) ?? []), n + 4]);
  });
  return out;
}

/**
 * Each function's code, by its entry label: from the label to its return's last delay slot
 * (lower-funcs.ts lays each out in one piece, its return last).
 */
export function functionRegions(code: readonly IrInstr[]): Map<string, [number, number]> {
  const entries = new Map<string, number>();
  code.forEach((i, n) => {
    if (i.op === 'label') entries.set(i.name, n);
  });
  const out = new Map<string, [number, number]>();
  code.forEach((i, n) => {
    if (i.op === 'branch' && i.via) out.set(i.label, [entries.get(i.label)!, n + 3]);
  });
  return out;
}

/**
 * The instructions a stretch of code runs, by index: [from, to] and, for every call in it, the
 * code of the function called, and of the functions that calls, and so on.
 */
export function runsWithCalls(code: readonly IrInstr[], from: number, to: number, regions = functionRegions(code)): number[] {
  const out: number[] = [];
  const seen = new Set<string>();
  const visit = (a: number, b: number) => {
    for (let n = a; n <= b; n++) {
      out.push(n);
      const i = code[n]!;
      if (i.op !== 'branch' || !i.link || seen.has(i.label)) continue;
      seen.add(i.label);
      const r = regions.get(i.label);
      if (r) visit(r[0], r[1]);
    }
  };
  visit(from, to);
  return out;
}

export function buildCfg(code: readonly IrInstr[]): Cfg {
  const n = code.length;
  const succs = successors(code);
  // Leaders: the start, labels, and whatever follows an instruction that does not fall through.
  const leader = new Uint8Array(n + 1);
  leader[0] = 1;
  code.forEach((i, k) => {
    if (i.op === 'label') leader[k] = 1;
    const s = succs[k]!;
    if (s.length !== 1 || s[0] !== k + 1) leader[k + 1] = 1;
  });
  const spans: [number, number][] = [];
  const blockOf = new Int32Array(n + 1).fill(-1);
  for (let k = 0; k < n; ) {
    let e = k;
    while (e + 1 < n && !leader[e + 1]) e++;
    blockOf.fill(spans.length, k, e + 1);
    spans.push([k, e]);
    k = e + 1;
  }
  const blocks = spans.map(([first, last]) => ({
    first,
    last,
    succs: [...new Set(succs[last]!.filter((s) => s < n).map((s) => blockOf[s]!))],
  }));
  return { code, succs, blocks, blockOf };
}

/**
 * The loops: a label and a later branch back to it, as [the label's index, the index of the
 * branch's last delay slot], in program order. Calls and returns make no loops.
 */
export function loops(code: readonly IrInstr[]): [number, number][] {
  const at = new Map<string, number>();
  const out: [number, number][] = [];
  code.forEach((i, n) => {
    if (i.op === 'label') at.set(i.name, n);
    else if (i.op === 'branch' && !i.link && !i.via) {
      const top = at.get(i.label);
      if (top !== undefined) out.push([top, n + 3]);
    }
  });
  return out;
}

/** The outermost loops, as [label index, index of the back branch's last delay slot]. */
export function outerLoops(code: readonly IrInstr[]): [number, number][] {
  const all = loops(code).sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const outer: [number, number][] = [];
  for (const l of all) if (!outer.length || l[0] > outer[outer.length - 1]![1]) outer.push(l);
  return outer;
}

/** Which instructions a path from the start reaches. */
export function reachable(cfg: Cfg): Uint8Array {
  const seen = new Uint8Array(cfg.code.length);
  const todo = [0];
  while (todo.length) {
    const n = todo.pop()!;
    if (n >= cfg.code.length || seen[n]) continue;
    seen[n] = 1;
    todo.push(...cfg.succs[n]!);
  }
  return seen;
}
