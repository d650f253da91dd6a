// The cycle model's parameters. Every figure is in GPU clock cycles (250 MHz on a Pi 1/2/3's
// default configuration). docs/timing.md explains each one, where it comes from and how the
// estimates were checked against published Pi timings (../shared/anchors.md).

export interface Timing {
  /** Clock frequency used to turn cycles into seconds. */
  readonly clockHz: number;
  /** A QPU issues one instruction every 4 clocks (Guide p. 16: "instruction cycle time of four system clocks"). */
  readonly cyclesPerInstr: number;
  /** Cycles from a TMU request (write to tmuN_s) to its data being ready for ldtmu. */
  readonly tmuLatency: number;
  /** Cycles a slice's TMU spends on one 16-lane request before it can start the next. */
  readonly tmuCyclesPerRequest: number;
  /** Fixed cost of a DMA load (memory to VPM), from the address write to the first word. */
  readonly dmaLoadBaseCycles: number;
  /** Cycles per 32-bit word a DMA load moves (about 690 MB/s measured on a Pi 2). */
  readonly dmaLoadCyclesPerWord: number;
  /** The same for DMA stores (VPM to memory; about 1120 MB/s). */
  readonly dmaStoreBaseCycles: number;
  readonly dmaStoreCyclesPerWord: number;
}

export const PI_TIMING: Timing = {
  clockHz: 250e6,
  cyclesPerInstr: 4,
  tmuLatency: 100,
  tmuCyclesPerRequest: 16,
  dmaLoadBaseCycles: 200,
  dmaLoadCyclesPerWord: 1.45,
  dmaStoreBaseCycles: 100,
  dmaStoreCyclesPerWord: 0.9,
};
