// The pi target: compiled kernels and machine code run on the QPUs of the Pi this process runs
// on, through the firmware's "execute QPU" call (mailbox.ts): the code, each QPU's uniform
// stream and the job list ({uniforms, code} bus addresses, one pair a QPU) are written into GPU
// memory, the call returns when QPU 0 raises the host interrupt (the compiler's epilogue does,
// after every QPU has finished: docs/compiler.md), and its time is measured around the call.
// Needs: a PiSession (session.ts) and arrays that live in its GPU memory (bus addresses).
// Guarantees: the code and uniforms of a run are freed after it, also when it fails; a run
// that does not finish within the timeout is an error, not a hang.

import type { Compiled } from '../compiler/driver.ts';
import type { Allocation } from '../common/memory.ts';
import { runDirect } from './direct.ts';
import { attempt } from './memory.ts';
import type { PiSession } from './session.ts';

export interface PiRunOptions {
  /**
   * How long to wait for the QPUs, in ms (default 1,000). Up to 1,000 the firmware's execute-QPU
   * call waits (Linux gives a mailbox call 1 s); above, the job goes through the V3D's registers
   * directly (direct.ts) and this process waits.
   */
  readonly timeoutMs?: number;
}

/** What the Pi measured. */
export interface PiRunResult {
  readonly qpus: number;
  /** Wall time of the execute-QPU call: the QPUs' run plus the firmware's overhead (about 0.1 ms). */
  readonly seconds: number;
}

/**
 * Linux gives a mailbox call 1 s (raspberrypi/linux #4321), counted from when the message is
 * sent, before the firmware starts its own clock: a firmware timeout near 1 s would lose to the
 * kernel's, whose ETIMEDOUT leaves the firmware's late answer to confuse the next call (the
 * clean-up's). So the firmware waits at most 900 ms, and longer jobs go through the registers.
 */
export const MAILBOX_LIMIT_MS = 900;
export const DEFAULT_TIMEOUT_MS = MAILBOX_LIMIT_MS;
/** The longest wait for a job through the registers: ten minutes. */
export const MAX_TIMEOUT_MS = 600_000;
/** 0: the firmware flushes the GPU's L1 and L2 caches before the run (raspberrypi/firmware #747). */
const FLUSH = 0;

/**
 * Runs machine code on `qpus` QPUs, each with its own uniform stream (words; bus addresses in
 * them are the arrays'), and returns the measured time.
 */
export function runOnPi(s: PiSession, code: Uint32Array, uniforms: readonly (readonly number[])[], opts: PiRunOptions = {}): PiRunResult {
  const qpus = uniforms.length;
  if (qpus < 1 || qpus > 12) throw new RangeError(`a run uses 1 to 12 QPUs, not ${qpus}`);
  const timeout = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) throw new RangeError(`the pi target's timeout is 1 to ${MAX_TIMEOUT_MS} ms, not ${timeout}`);
  // One allocation holds the code, each QPU's uniforms and the job list: every allocation costs
  // four firmware calls (allocate, lock, unlock, release) and a mapping.
  // Word offsets in it: the code at 0, then each QPU's uniforms (streamAt[q]), then the job list.
  const codeWords = code.length;
  const streamAt: number[] = [];
  let jobsAt = codeWords;
  for (const u of uniforms) {
    streamAt.push(jobsAt);
    jobsAt += u.length;
  }
  const total = jobsAt + 2 * qpus;
  const made: Allocation[] = [];
  let failed = false;
  try {
    const block = s.memory.alloc(total * 4, 'code, uniforms and job list');
    made.push(block);
    const w = s.memory.words(block);
    const bus = (word: number) => (block.address + 4 * word) >>> 0;
    for (let i = 0; i < codeWords; i++) w[i] = code[i]!; // aligned word writes: the mapping is device memory
    uniforms.forEach((u, q) => u.forEach((x, i) => (w[streamAt[q]! + i] = x >>> 0)));
    for (let q = 0; q < qpus; q++) {
      w[jobsAt + 2 * q] = bus(streamAt[q]!); // each QPU's job: its uniforms, then the code
      w[jobsAt + 2 * q + 1] = bus(0);
    }
    if (timeout > MAILBOX_LIMIT_MS) return { qpus, seconds: runDirect(s, { uniforms: streamAt.map(bus), code: bus(0) }, timeout) };
    const start = performance.now();
    s.mailbox.executeQpu(qpus, bus(jobsAt), FLUSH, timeout);
    return { qpus, seconds: (performance.now() - start) / 1000 };
  } catch (e) {
    failed = true;
    // The QPUs may still be running the job: stop them before their code and uniforms are
    // given back (the firmware could hand that memory out again), then enable them again.
    if (made.length) attempt([() => s.mailbox.enableQpus(false), () => s.mailbox.enableQpus(true)]);
    throw e;
  } finally {
    freeAll(s, made, failed);
  }
}

/**
 * Frees allocations, every one whatever fails; a failure is thrown only when the run did not
 * fail itself (`failed`: a `finally` must not hide the error that brought it there). What
 * could not be freed stays in the session's memory, which endPiSession tries again and reports.
 */
export function freeAll(s: PiSession, made: readonly Allocation[], failed: boolean): void {
  const failures = attempt(made.map((a) => () => s.memory.free(a)));
  if (failures.length && !failed) throw failures[0]!.error;
}

/**
 * A compiled kernel's run on the Pi: uniforms as the emulator target builds them (QPU number,
 * QPU count, scratch memory when registers spill, the arguments: docs/compiler.md, "The
 * calling convention"); arrays already in the session's memory.
 */
export function runCompiledOnPi(
  s: PiSession,
  c: Compiled,
  args: readonly number[],
  opts: PiRunOptions = {},
  /**
   * Called with the scratch memory's words after the run, also when the run failed, before they
   * are freed: an error it throws stands in for the run's (the runtime reads failed assertions).
   */
  inspect?: (scratch: Int32Array) => void,
): PiRunResult {
  const scratch: Allocation[] = [];
  let failed = false;
  let looked = false;
  const look = () => {
    if (!scratch[0] || !inspect) return;
    try {
      inspect(s.memory.view(scratch[0], Int32Array));
    } catch (e) {
      // A QPU that failed an assertion ended early: others may still wait for it (a barrier, a
      // semaphore), even where QPU 0 took its end for theirs and raised the host interrupt.
      attempt([() => s.mailbox.enableQpus(false), () => s.mailbox.enableQpus(true)]);
      throw e;
    }
  };
  try {
    if (c.uniformsBeforeArgs === 3) {
      scratch.push(s.memory.alloc(Math.max(4, c.scratchBytes), 'scratch memory'));
      s.memory.view(scratch[0]!, Int32Array).fill(0); // cleared, as the emulator target's is
    }
    const before = scratch.map((a) => a.address);
    const uniforms = Array.from({ length: c.qpus }, (_, q) => [q, c.qpus, ...before, ...args]);
    const result = runOnPi(s, c.words, uniforms, opts);
    looked = true; // once: an assertion it throws comes here too
    look();
    return result;
  } catch (e) {
    failed = true;
    if (!looked) look();
    throw e;
  } finally {
    freeAll(s, scratch, failed);
  }
}
