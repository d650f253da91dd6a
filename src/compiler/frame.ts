// A kernel's frame: what every compiled kernel does before its body and after it
// (docs/compiler.md, "The calling convention" and "The end of a kernel").
// Needs: a lowering to emit into. Guarantees: the prologue reads the uniforms (this QPU's number,
// the QPU count, the arguments), zeroes the other variables and works out this QPU's VPM and DMA
// setups; the epilogue waits for the last store, then QPU 0 waits for every other QPU on
// semaphore 15 and interrupts the host, and every QPU ends.

import { BARRIER_SEMAPHORE } from '../source/ast.ts';
import type { IrInstr, Reg, Src, VReg } from './ir.ts';
import { int, p } from './ir.ts';
import { DMA_LOAD_ROW, DMA_LOAD_ROW_SHIFT, DMA_STORE_ROW, DMA_STORE_ROW_SHIFT, VPM_READ_ROW, VPM_WRITE_ROW } from './lower-words.ts';
import { firstRowOp, loadRowOffset } from './vpm-rows.ts';

/** What the frame needs of a lowering. */
export interface FrameEmitter {
  fresh(): VReg;
  label(what: string): string;
  emit(i: IrInstr): void;
  alu(code: string, dst: Reg, a: Src, b?: Src, extra?: { setf?: boolean }): void;
  mov(dst: Reg, src: Src): void;
  branch(cond: string, label: string): void;
  waitForStores(): void;
}

/** The registers the prologue fills. */
export interface Frame {
  readonly qpu: VReg;
  readonly nqpus: VReg;
  /** The number of this QPU's store row, the first of its block of VPM rows (vpm-rows.ts). */
  readonly storeRow: VReg;
  /** The VPM write setup of this QPU's store row, and the DMA store setup of that row. */
  readonly vpmSetup: VReg;
  readonly dmaSetup: VReg;
  /** The DMA load setup into this QPU's load row (the last of its block), and the VPM read setup of that row. */
  readonly loadDma: VReg;
  readonly loadRead: VReg;
  /** The load row's number, for the setups of 8- and 16-bit loads (lower-memory.ts). */
  readonly loadRow: VReg;
}

export function prologue(l: FrameEmitter, params: number, vars: readonly VReg[], qpus: number, scratch?: VReg): Frame {
  // Uniforms: this QPU's number, the QPU count, the scratch memory's address (when the kernel
  // asserts: its failure records are there), then the arguments.
  const qpu = l.fresh();
  const nqpus = l.fresh();
  l.mov(qpu, p('unif'));
  l.mov(nqpus, p('unif'));
  if (scratch) l.mov(scratch, p('unif'));
  for (let i = 0; i < params; i++) l.mov(vars[i]!, p('unif'));
  for (let i = params; i < vars.length; i++) l.mov(vars[i]!, int(0));
  const constant = (bits: number) => {
    const r = l.fresh();
    l.emit({ op: 'ldi', dst: r, bits });
    return r;
  };
  const small = (n: number) => (n <= 15 ? int(n) : constant(n));
  // This QPU's block of VPM rows (vpm-rows.ts): its store row first, for stores and the DMA store of that row.
  const storeRow = l.fresh();
  const first = firstRowOp(qpus);
  if (qpus === 1) l.mov(storeRow, int(0));
  else l.alu(first.code, storeRow, qpu, first.code === 'shl' ? int(first.by) : small(first.by));
  const vpmSetup = l.fresh();
  l.alu('add', vpmSetup, constant(VPM_WRITE_ROW), storeRow);
  const u = l.fresh();
  l.alu('shl', u, storeRow, int(DMA_STORE_ROW_SHIFT));
  const dmaSetup = l.fresh();
  l.alu('or', dmaSetup, constant(DMA_STORE_ROW), u);
  // The DMA load of one row of 16 words into its load row, the block's last, and the VPM read of that row.
  const row = l.fresh();
  l.alu('add', row, storeRow, small(loadRowOffset(qpus)));
  const rowY = l.fresh();
  l.alu('shl', rowY, row, int(DMA_LOAD_ROW_SHIFT));
  const loadDma = l.fresh();
  l.alu('or', loadDma, constant(DMA_LOAD_ROW), rowY);
  const loadRead = l.fresh();
  l.alu('or', loadRead, constant(VPM_READ_ROW), row);
  return { qpu, nqpus, storeRow, vpmSetup, dmaSetup, loadDma, loadRead, loadRow: row };
}

/** What the frame's registers hold, as the IR's dump names them. */
export function frameNames(f: Frame): [VReg, string][] {
  return [
    [f.vpmSetup, "VPM write setup of this QPU's store row"],
    [f.dmaSetup, 'DMA store setup of that row'],
    [f.loadDma, "DMA load setup of this QPU's load row"],
    [f.loadRead, 'VPM read setup of that row'],
  ];
}

/** The end-of-kernel barrier: QPU 0 waits for the others, then interrupts the host. */
export function epilogue(l: FrameEmitter, qpu: VReg, nqpus: VReg): void {
  l.waitForStores(); // the last store has left
  const others = l.label('others');
  const done = l.label('done');
  l.alu('or', p('nop'), qpu, qpu, { setf: true });
  l.branch('anynz', others);
  const n = l.fresh();
  l.alu('sub', n, nqpus, int(1));
  const loop = l.label('barrier');
  const after = l.label('interrupt');
  l.emit({ op: 'label', name: loop });
  l.alu('or', p('nop'), n, n, { setf: true });
  l.branch('allz', after);
  l.emit({ op: 'sema', down: true, n: BARRIER_SEMAPHORE });
  l.alu('sub', n, n, int(1));
  l.branch('always', loop);
  l.emit({ op: 'label', name: after });
  l.mov(p('host_int'), int(1));
  l.branch('always', done);
  l.emit({ op: 'label', name: others });
  l.emit({ op: 'sema', down: false, n: BARRIER_SEMAPHORE });
  l.emit({ op: 'label', name: done });
  l.emit({ op: 'end' });
}
