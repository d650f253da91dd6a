// A Raspberry Pi's device layer for tests (src/pi/device.ts), with no Pi: it answers the
// firmware property messages from their documented layouts (the raspberrypi/firmware wiki's
// "Mailbox property interface", hello_fft's mailbox.c), serves "physical memory" out of an
// emulator GpuMemory, runs execute-QPU jobs on the emulator over that same memory (so results
// are real), and records every call, so tests can run the whole pi target path and check what
// it asked for, in what order, and that it gave everything back.

import type { Board, Mapping, PiDevice } from '../../src/pi/device.ts';
import { BUS_BASE, type Allocation, GpuMemory } from '../../src/common/memory.ts';
import { Machine, type RunResult } from '../../src/emulator/machine.ts';
import { V3D_OFFSET, V3D_REG } from '../../src/pi/direct.ts';

const TAG_NAMES: Record<number, string> = {
  0x30012: 'enable',
  0x3000c: 'allocate',
  0x3000d: 'lock',
  0x3000e: 'unlock',
  0x3000f: 'release',
  0x30011: 'execute',
  0x10002: 'revision',
};
const SUCCESS = 0x80000000;
/** execute-QPU's status when the job did not end in time. */
const EXECUTE_TIMEOUT = 0x80000000;
const ALIAS = 0xc0000000;

export interface TestDeviceOptions {
  /** Answer allocate with handle 0 (out of GPU memory) from this allocation on (0-based). */
  readonly failAllocationAt?: number;
  /** Answer execute with this status (0x80000000: a timeout), or throw this errno ('ETIMEDOUT'). */
  readonly executeStatus?: number;
  readonly executeThrows?: string;
  /** Answer enable with an EINVAL ioctl failure (the KMS driver owns V3D). */
  readonly enableFails?: boolean;
  /** Jobs through the V3D registers never complete. */
  readonly directHangs?: boolean;
}

export class TestPiDevice implements PiDevice {
  readonly board: Board = { model: 'Raspberry Pi 3 Model B (test device)', soc: 'BCM2837', peripheralBase: 0x3f000000, memFlags: 0x4 };
  /** Every call, one line each: "allocate 4096 4096 0x14 -> 1", "map 0x00100000 4096", ... */
  readonly calls: string[] = [];
  readonly memory = new GpuMemory(64 * 1024 * 1024);
  readonly machine = new Machine(this.memory);
  private readonly handles = new Map<number, { a: Allocation; locked: boolean }>();
  private nextHandle = 1;
  private allocations = 0;
  enabled = false;
  closed = false;
  mapped = 0;

  constructor(private readonly opts: TestDeviceOptions = {}) {}

  property(m: Uint32Array): void {
    if (this.closed) throw new Error('the device is closed');
    if (m[0] !== m.length * 4 || m[1] !== 0 || m[m.length - 1] !== 0 || (m[4]! & 0x80000000) !== 0) throw new Error(`malformed message ${Array.from(m).join(',')}`);
    const tag = m[2]!;
    const v = Array.from(m.subarray(5, 5 + m[3]! / 4));
    const name = TAG_NAMES[tag] ?? `tag 0x${tag.toString(16)}`;
    const out = this.answer(name, v);
    this.calls.push(`${name} ${v.map((x) => (x > 0xffff ? '0x' + x.toString(16) : String(x))).join(' ')} -> ${out.map((x) => (x > 0xffff ? '0x' + (x >>> 0).toString(16) : String(x))).join(' ')}`);
    m[1] = SUCCESS;
    m[4] = (SUCCESS | (out.length * 4)) >>> 0;
    out.forEach((x, i) => (m[5 + i] = x >>> 0));
  }

  private answer(name: string, v: number[]): number[] {
    switch (name) {
      case 'enable':
        if (this.opts.enableFails && v[0] === 1) throw Object.assign(new Error('ioctl /dev/vcio: invalid argument (EINVAL)'), { code: 'EINVAL' });
        this.enabled = v[0] === 1;
        return [0];
      case 'allocate': {
        if (this.opts.failAllocationAt !== undefined && this.allocations++ >= this.opts.failAllocationAt) return [0];
        const h = this.nextHandle++;
        this.handles.set(h, { a: this.memory.alloc(v[0]!, `firmware handle ${h}`), locked: false });
        return [h];
      }
      case 'lock': {
        const x = this.handles.get(v[0]!);
        if (!x) return [0];
        x.locked = true;
        return [x.a.address];
      }
      case 'unlock':
      case 'release': {
        const x = this.handles.get(v[0]!);
        if (!x) return [1];
        if (name === 'unlock') x.locked = false;
        else {
          this.memory.free(x.a);
          this.handles.delete(v[0]!);
        }
        return [0];
      }
      case 'execute':
        return [this.execute(v[0]!, v[1]!)];
      default:
        return [0];
    }
  }

  /** Runs the job list at `control` (per QPU: uniforms, code) on the emulator, as the firmware would on the QPUs. */
  private execute(qpus: number, control: number): number {
    if (this.opts.executeThrows) throw Object.assign(new Error(`ioctl /dev/vcio: ${this.opts.executeThrows}`), { code: this.opts.executeThrows });
    if (this.opts.executeStatus !== undefined) return this.opts.executeStatus;
    if (!this.enabled) return 1;
    const read = (addr: number) => this.memory.readWord(addr);
    const r = this.runJobs(Array.from({ length: qpus }, (_, q) => ({ uniforms: read(control + 8 * q) >>> 0, code: read(control + 8 * q + 4) >>> 0 })));
    // The firmware returns at the job's host interrupt: without one, it waits until its timeout.
    return r.total.hostInterrupts >= 1 ? 0 : EXECUTE_TIMEOUT;
  }

  private handleAt(bus: number): Allocation {
    for (const { a } of this.handles.values()) if (bus >= a.address && bus < a.address + a.bytes) return a;
    throw new Error(`no allocation at 0x${bus.toString(16)}`);
  }

  map(physical: number, bytes: number): Mapping {
    if (physical === this.board.peripheralBase + V3D_OFFSET) return this.registers(physical);
    // An address with the bus alias bits is not a physical one (mapping it froze a Pi 3B: maazl/vc4asm #25).
    if ((physical & ALIAS) !== 0) throw new Error(`map 0x${physical.toString(16)}: a bus address, not an ARM physical one`);
    const bus = (physical | ALIAS) >>> 0;
    const a = this.handleAt(bus);
    if (physical % 4096 !== 0 || bus !== a.address) throw new Error(`map 0x${physical.toString(16)}: not the start of an allocation`);
    this.calls.push(`map 0x${physical.toString(16).padStart(8, '0')} ${bytes}`);
    this.mapped++;
    const words = new Uint32Array(this.memory.view(a, Int32Array).buffer, a.address - BUS_BASE, bytes / 4);
    let live = true;
    return {
      words,
      unmap: () => {
        if (!live) throw new Error('unmapped twice');
        live = false;
        this.mapped--;
        this.calls.push(`unmap 0x${physical.toString(16).padStart(8, '0')}`);
      },
    };
  }

  /**
   * The V3D's register page: writes are recorded; programs queued (SRQUA, then SRQPC) run
   * together, as one run of that many QPUs, when SRQCS is next read, which then counts them done.
   */
  private registers(physical: number): Mapping {
    const words = new Uint32Array(1024);
    const queued: { uniforms: number; code: number }[] = [];
    let uniforms = 0;
    let completed = 0;
    this.calls.push(`map V3D registers`);
    this.mapped++;
    const view = new Proxy(words, {
      set: (t, key, value: number) => {
        const i = Number(key);
        if (i === V3D_REG.SRQUA >> 2) uniforms = value >>> 0;
        else if (i === V3D_REG.SRQPC >> 2) queued.push({ uniforms, code: value >>> 0 });
        else if (i === V3D_REG.SRQCS >> 2 && value & (1 << 16)) completed = 0;
        else this.calls.push(`write V3D 0x${(i * 4).toString(16)} 0x${(value >>> 0).toString(16)}`);
        t[i] = value;
        return true;
      },
      get: (t, key) => {
        if (key === String(V3D_REG.SRQCS >> 2)) {
          if (queued.length && !this.opts.directHangs) {
            this.calls.push(`direct ${queued.length}`);
            this.runJobs(queued.splice(0));
            completed = this.jobsRun;
          }
          return (completed & 0xff) << 16;
        }
        const v = Reflect.get(t, key);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    let live = true;
    return {
      words: view,
      unmap: () => {
        if (!live) throw new Error('unmapped twice');
        live = false;
        this.mapped--;
        this.calls.push(`unmap V3D registers`);
        void physical;
      },
    };
  }

  private jobsRun = 0;

  /** Runs QPU programs together on the emulator over this device's memory. */
  private runJobs(jobs: readonly { uniforms: number; code: number }[]): RunResult {
    const code = this.handleAt(jobs[0]!.code);
    const words = new Uint32Array(this.memory.view(code, Int32Array).buffer, code.address - BUS_BASE, code.bytes / 4).slice();
    // The machine runs its own copy of the code, freed after the run (a firmware keeps none).
    const program = this.machine.load(words, 'code');
    try {
      const r = this.machine.run(program, jobs.map((j) => j.uniforms));
      this.jobsRun = jobs.length;
      return r;
    } finally {
      this.memory.free(program.code);
    }
  }

  close(): void {
    this.closed = true;
    this.calls.push('close');
  }

  /** Firmware allocations not released. */
  get held(): number {
    return this.handles.size;
  }
}
