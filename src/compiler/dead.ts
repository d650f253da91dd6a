// Dead code (pass `dead`, from -O1): instructions whose only effect is a value no path reads.
// The commonest is the prologue's zero for a variable that is always written before it is read.
// Needs: IR from lower.ts. Guarantees: the same computation without the ALU operations and load
// immediates that write a virtual register dead after them (live on no path), set no flags and
// read nothing with a side effect (uniforms, the VPM, the mutex, ...: ir.ts readKind); repeated
// until none is left, so that a chain of dead values goes at once.

import { def, type IrInstr, readKind, type Src } from './ir.ts';
import { liveness, walkLive } from './liveness.ts';

const pure = (s: Src) => readKind(s) !== 'effect';

export function removeDeadCode(code: readonly IrInstr[], nregs: number): IrInstr[] {
  let out = code as IrInstr[];
  for (;;) {
    const dead = new Uint8Array(out.length);
    let any = false;
    walkLive(liveness(out, nregs), (k, live) => {
      const i = out[k]!;
      const d = def(i);
      if (!d || live.has(d.id)) return;
      if (i.op === 'ldi' || (i.op === 'alu' && !i.setf && pure(i.a) && pure(i.b))) (dead[k] = 1), (any = true);
    });
    if (!any) return out;
    out = out.filter((_, k) => !dead[k]);
  }
}
