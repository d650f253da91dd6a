// Checks inside kernels: assert(cond, message?, values?) (source/checks.ts says what a failure
// reports; kernel()'s option `assertions: false` leaves them out), and print(label, x, ...).

import type { Expr } from '../source/ast.ts';
import { builder, describeHost } from './builder.ts';
import { notInWhere } from './control.ts';
import { BoolValue, boolOf, type Elem, FloatExpr, IntExpr, PtrExpr } from './values.ts';
import { checkOwner } from './builder.ts';
import { PRINT_ROWS } from '../source/checks.ts';

/** A value an assertion may show: an Int, a Float or a Ptr. */
type Shown = IntExpr | FloatExpr | PtrExpr<Elem>;

/**
 * Stops the run if `cond` fails in some lane: the error names the kernel, this line, the
 * message, the QPUs and lanes where it failed, and in them the values given by name
 * (`assert(i.lt(n), 'i in range', { i, n })`). When it holds it costs a few instructions.
 */
export function assert(cond: BoolValue, message?: string, values: Record<string, Shown> = {}): void {
  const b = builder('assert');
  notInWhere(b, 'assert');
  const c = boolOf(cond, 'assert');
  checkOwner(c.owner, 'assert');
  if (message !== undefined && typeof message !== 'string') throw b.error(`assert(cond, message): the message is a string, not ${describeHost(message)}`);
  if (values === null || typeof values !== 'object' || Array.isArray(values))
    throw b.error(`assert(cond, message, values): the values are an object of named Ints, Floats or Ptrs, such as { i, n }, not ${describeHost(values)}`);
  const names = Object.keys(values);
  const exprs: Expr[] = names.map((n) => {
    const v = (values as Record<string, unknown>)[n];
    if (!(v instanceof IntExpr || v instanceof FloatExpr || v instanceof PtrExpr)) throw b.error(`assert(..., { ${n} }): ${n} is not an Int, a Float or a Ptr but ${describeHost(v)}`);
    checkOwner(v.owner, 'assert');
    return v.node;
  });
  if (exprs.length > MAX_SHOWN) throw b.error(`assert shows at most ${MAX_SHOWN} values, not ${exprs.length}`);
  if (!b.assertions) return;
  b.emit({ k: 'assert', b: c.node, ...(message !== undefined ? { message } : {}), names, values: exprs });
}

/** Values one assertion may show: each is a row of 16 words in its failure record. */
export const MAX_SHOWN = 8;

/**
 * Shows, after the run, the label and the 16 lanes of each value on this QPU (an object of
 * values shows their names too: `print('step', { i, x })`), in the QPU's program order. Each
 * QPU keeps PRINT_ROWS rows (a row a print and one a value); the host says how many more it dropped.
 */
export function print(label: string, ...values: (Shown | Record<string, Shown>)[]): void {
  const b = builder('print');
  notInWhere(b, 'print');
  if (typeof label !== 'string') throw b.error(`print(label, ...): the label is a string, not ${describeHost(label)}`);
  const names: string[] = [];
  const exprs: Expr[] = [];
  const add = (name: string, v: unknown, shownAs: string) => {
    if (!(v instanceof IntExpr || v instanceof FloatExpr || v instanceof PtrExpr)) throw b.error(`print(${JSON.stringify(label)}, ...): ${shownAs} is not an Int, a Float or a Ptr but ${describeHost(v)}`);
    checkOwner(v.owner, 'print');
    names.push(name);
    exprs.push(v.node);
  };
  values.forEach((v, j) => {
    if (v !== null && typeof v === 'object' && !(v instanceof IntExpr || v instanceof FloatExpr || v instanceof PtrExpr)) for (const [n, x] of Object.entries(v)) add(n, x, n);
    else add('', v, `value ${j + 1}`);
  });
  if (1 + exprs.length > PRINT_ROWS) throw b.error(`print shows at most ${PRINT_ROWS - 1} values, not ${exprs.length}`);
  b.emit({ k: 'print', label, names, values: exprs });
}
