// The language's conditions: vectors of 16 conditions, one per lane (BoolValue, which comparisons
// make and and/or/not combine), and conditions over the lanes, any or all of them (CondValue, for
// If, While and For).

import type { BoolExpr } from '../source/ast.ts';
import { builder, checkOwner, describeHost, type KernelBuilder } from './builder.ts';
import { forged, noPrimitive } from './vec.ts';

/** A vector of 16 conditions (one per lane), from comparisons. */
export class BoolValue {
  readonly #node: BoolExpr;
  readonly #owner: KernelBuilder;
  constructor(node: BoolExpr, owner: KernelBuilder) {
    this.#node = node;
    this.#owner = owner;
  }
  get node(): BoolExpr {
    return #node in this ? this.#node : forged('a condition');
  }
  get owner(): KernelBuilder {
    return #owner in this ? this.#owner : forged('a condition');
  }
  and(x: BoolValue): BoolValue {
    checkOwner(this.owner, 'and');
    checkOwner(boolOf(x, 'and').owner, 'and');
    return new BoolValue({ k: 'and', a: this.node, b: x.node }, this.owner);
  }
  or(x: BoolValue): BoolValue {
    checkOwner(this.owner, 'or');
    checkOwner(boolOf(x, 'or').owner, 'or');
    return new BoolValue({ k: 'or', a: this.node, b: x.node }, this.owner);
  }
  not(): BoolValue {
    checkOwner(this.owner, 'not');
    return new BoolValue({ k: 'not', a: this.node }, this.owner);
  }
  [Symbol.toPrimitive](hint: string): never {
    throw noPrimitive(this.owner, 'condition', hint);
  }
}

/** `x` when it is a vector condition (a comparison), else an error naming `what`. */
export function boolOf(x: unknown, what: string): BoolValue {
  if (!(x instanceof BoolValue)) throw builder(what).error(`${what} needs a vector condition (a comparison such as x.lt(y)), not ${describeHost(x)}`);
  return x;
}

/** A condition on the whole vector: any or all of its lanes (for If, While, For). */
export class CondValue {
  readonly #k: 'any' | 'all';
  readonly #b: BoolValue;
  constructor(k: 'any' | 'all', b: BoolValue) {
    this.#k = k;
    this.#b = b;
  }
  get k(): 'any' | 'all' {
    return #k in this ? this.#k : forged('a condition');
  }
  get b(): BoolValue {
    return #b in this ? this.#b : forged('a condition');
  }
  [Symbol.toPrimitive](hint: string): never {
    throw noPrimitive(this.b.owner, this.k, hint);
  }
}
