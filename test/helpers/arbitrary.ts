// fast-check generators for instructions and words, driven by the same layout table as the codec.
import fc from 'fast-check';
import { LAYOUTS } from '../../src/vc4/codec.ts';
import type { Instr, InstrKind } from '../../src/vc4/instr.ts';

/** Any instruction the model can express (every field anywhere in its range). */
export function arbInstr(kinds: InstrKind[] = ['alu', 'ldi', 'sema', 'branch']): fc.Arbitrary<Instr> {
  return fc.constantFrom(...kinds).chain((kind) => {
    const rec: Record<string, fc.Arbitrary<number>> = {};
    for (const f of LAYOUTS[kind]) {
      if (f.fixed !== undefined) continue;
      if (kind === 'alu' && f.name === 'sig') rec[f.name] = fc.integer({ min: 0, max: 13 });
      else if (kind === 'ldi' && f.name === 'mode') rec[f.name] = fc.constantFrom(0, 1, 2, 3, 5, 6, 7);
      else if (f.signed) rec[f.name] = fc.integer({ min: -(2 ** (f.width - 1)), max: 2 ** (f.width - 1) - 1 });
      else rec[f.name] = fc.integer({ min: 0, max: 2 ** f.width - 1 });
    }
    return fc.record(rec).map((r) => ({ kind, ...r }) as unknown as Instr);
  });
}

/** A random 64-bit word as its [high, low] halves. */
export const arbWord: fc.Arbitrary<[number, number]> = fc.tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }));
