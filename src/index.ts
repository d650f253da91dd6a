// qpu-ts: program the Raspberry Pi's VideoCore IV QPUs from TypeScript.
// The language (docs/language.md), kernels and the memory they share with the host.

export { Float, Int, Int8, Int16, Ptr, Uint8, Uint16, Var } from './dsl/types.ts';
export type { FloatType, IntType, NarrowType, ParamType, PtrType } from './dsl/types.ts';
export {
  all,
  any,
  atomicAdd,
  exp2,
  gather,
  If,
  index,
  log2,
  me,
  mutexLock,
  mutexUnlock,
  numQPUs,
  receive,
  recip,
  recipsqrt,
  rotate,
  scatter,
  scatterAdd,
  select,
  semaDec,
  semaInc,
  store,
  Where,
} from './dsl/control.ts';
export { Break, Continue, For, Loop, While } from './dsl/loops.ts';
export { andQPUs, barrier, maxQPUs, minQPUs, orQPUs, scanQPUs, sumQPUs } from './dsl/qpus.ts';
export { parallelFor } from './dsl/parallel.ts';
export { stream, Stream } from './dsl/streams.ts';
export { assert, print } from './dsl/checks.ts';
export { func, type Func, type FuncArgs, type FuncOptions, type FuncResult, type FuncValue } from './dsl/funcs.ts';
export { KernelAssertionError } from './source/checks.ts';
export { BoolValue, CondValue, FloatExpr, FloatVar, IntExpr, IntVar, PtrExpr, PtrVar } from './dsl/values.ts';
export type { FloatLike, IntLike } from './dsl/values.ts';
export { DslError } from './dsl/builder.ts';
export { packBytes, packHalves } from './dsl/pixels.ts';
export { kernel } from './runtime/kernel.ts';
export type { HostArg, HostArgs, Kernel, KernelOptions, KernelRun, KernelRunOptions, ParamValues, Progress, RunOptions, RunReport, RunTarget, TargetRunOptions } from './runtime/kernel.ts';
export type { RunResult } from './emulator/machine.ts';
export type { QpuStats } from './emulator/qpu.ts';
export type { PiRunResult } from './pi/target.ts';
export { SharedArray } from './runtime/shared-array.ts';
export type { SharedFloat32Array, SharedInt32Array } from './runtime/shared-array.ts';
export { InterpreterError } from './source/interpreter.ts';
export { CheckError } from './source/check.ts';
export { progressBar, progressShown } from './runtime/progress.ts';
export type { ProgressBar, ProgressBarOptions, ProgressStream } from './runtime/progress.ts';
export { debug, DebugError, DebugSession } from './debug/session.ts';
export type { Breakpoint, DebugOptions, DebugTarget, Stopped, StopReason, VariableView } from './debug/session.ts';
export type { Snapshot, QpuSnapshot } from './debug/snapshot.ts';
export type { KernelProfile, StatementProfile, InstructionProfile, QpuFigures, Figures } from './runtime/profile.ts';
export type { Verdict, Bound } from './runtime/verdict.ts';
export { annotatedAssembly, profileText } from './runtime/profile-text.ts';
export { timelineSvg } from './runtime/timeline-svg.ts';
export type { Explanation } from './compiler/explain.ts';
