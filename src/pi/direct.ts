// Jobs longer than the mailbox allows: Linux gives any firmware mailbox call 1 s (the vcio
// driver's transaction timeout, raspberrypi/linux #4321), so a job that may run longer is
// launched through the V3D's user-program registers directly, as GPU_FFT does for its short
// jobs (raspberrypi/userland, hello_fft/gpu_fft_base.c, gpu_fft_base_exec_direct): interrupts
// to the firmware off, the GPU's caches cleared, each QPU's uniforms and code address written
// to the request FIFO, then the "completed" count polled until every QPU has ended its program.
// Register offsets: the VideoCore IV 3D Architecture Reference Guide's register map (V3D base
// = peripheral base + 0xC00000), as gpu_fft_base.c and VC4CL's V3D.cpp use them.
// Needs: a session (QPUs enabled through the mailbox) and a device that maps the peripherals.
// Guarantees: returns when all QPUs have ended; a job past its timeout is an error (its QPUs
// may still be running: the GPU may need a reboot, as with a mailbox timeout).

import type { PiSession } from './session.ts';

/** The V3D's registers, from the peripheral base. */
export const V3D_OFFSET = 0xc00000;
/** Byte offsets of the registers used, from the V3D base. */
export const V3D_REG = {
  /** L2 cache control: bit 2 clears it. */
  L2CACTL: 0x020,
  /** Slice cache control: writing ones clears the texture, uniform and instruction caches. */
  SLCACTL: 0x024,
  /** User program request: the program counter (writing it queues the program) ... */
  SRQPC: 0x430,
  /** ... its uniforms address (written first) ... */
  SRQUA: 0x434,
  /** ... and control and status: bits 16-23 programs completed, 8-15 requested, 7 error, 0-5 queue length. */
  SRQCS: 0x43c,
  /** Interrupt configuration, enables and flags of the QPUs' host interrupts. */
  DBCFG: 0xe00,
  DBQITE: 0xe2c,
  DBQITC: 0xe30,
} as const;
/** SRQCS: write 1 to clear the error bit (7), the requests count (8) and the completed count (16). */
const SRQCS_RESET = (1 << 7) | (1 << 8) | (1 << 16);
const COMPLETED_SHIFT = 16;
const COUNT_MASK = 0xff;
const L2_CLEAR = 1 << 2;
const ALL_ONES = 0xffffffff;
/** The registers' page. */
const REGISTER_BYTES = 4096;
/** Between polls of a long job, the process sleeps this long instead of spinning. */
const POLL_MS = 1;

/** A job: each QPU's uniforms bus address, and the code's. */
export interface DirectJob {
  readonly uniforms: readonly number[];
  readonly code: number;
}

/** Runs a job through the registers; returns its wall time in seconds. */
export function runDirect(s: PiSession, job: DirectJob, timeoutMs: number): number {
  const regs = s.device.map(s.device.board.peripheralBase + V3D_OFFSET, REGISTER_BYTES);
  try {
    const w = regs.words;
    const at = (reg: keyof typeof V3D_REG) => V3D_REG[reg] >> 2;
    w[at('DBCFG')] = 0; // no interrupt to the firmware: it is not waiting for this job
    w[at('DBQITE')] = 0;
    w[at('DBQITC')] = ALL_ONES;
    w[at('L2CACTL')] = L2_CLEAR;
    w[at('SLCACTL')] = ALL_ONES;
    w[at('SRQCS')] = SRQCS_RESET;
    const start = performance.now();
    for (const u of job.uniforms) {
      w[at('SRQUA')] = u;
      w[at('SRQPC')] = job.code;
    }
    const n = job.uniforms.length;
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    while (((w[at('SRQCS')]! >>> COMPLETED_SHIFT) & COUNT_MASK) !== n) {
      const spent = performance.now() - start;
      if (spent > timeoutMs)
        throw new Error(
          `the QPUs did not finish within ${timeoutMs} ms (${((w[at('SRQCS')]! >>> COMPLETED_SHIFT) & COUNT_MASK)} of ${n} done): they may still be running, and the GPU may need a reboot`,
        );
      // Spin for the first millisecond (short jobs end sooner), then sleep between polls.
      if (spent > POLL_MS) Atomics.wait(sleeper, 0, 0, POLL_MS);
    }
    return (performance.now() - start) / 1000;
  } finally {
    regs.unmap();
  }
}
