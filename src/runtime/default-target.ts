// Where kernels run when a call does not say: on a Raspberry Pi whose QPUs this process can use
// (a Pi 1, 2, 3 or Zero with /dev/vcio, /dev/mem and the legacy graphics stack: pi/board.ts), the
// pi target; anywhere else, the emulator. The QPU_TARGET environment variable (emulator,
// interpreter or pi) chooses instead. Decided once, on first use, and kept: SharedArrays are
// allocated where the default target's kernels read them (runtime/shared-array.ts).

import { detectBoard } from '../pi/board.ts';
import type { RunTarget } from './run-options.ts';

const TARGETS: readonly RunTarget[] = ['emulator', 'interpreter', 'pi'];

let chosen: { target: RunTarget; why: string } | undefined;

/** The default target, and why it is the one (for docs and messages). */
export function defaultTarget(): { target: RunTarget; why: string } {
  if (chosen) return chosen;
  const env = process.env.QPU_TARGET;
  if (env !== undefined && env !== '') {
    if (!(TARGETS as readonly string[]).includes(env)) throw new Error(`QPU_TARGET=${env}: the targets are ${TARGETS.join(', ')}`);
    return (chosen = { target: env as RunTarget, why: `QPU_TARGET=${env}` });
  }
  const board = detectBoard();
  chosen = board.ok ? { target: 'pi', why: `this is a ${board.board.model} whose QPUs this process can use` } : { target: 'emulator', why: board.reason };
  return chosen;
}

/** Forgets the choice (tests that change QPU_TARGET). */
export function resetDefaultTarget(): void {
  chosen = undefined;
}
