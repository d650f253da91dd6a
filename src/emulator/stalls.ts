// Why a QPU stalls, in the cycle model: waiting for a TMU result, a DMA transfer, the VPM, a
// semaphore or the mutex. A QPU's figures (report.ts) and a run's profile (profile.ts) count
// stall cycles by these causes.

export type StallCause = 'tmu' | 'dma' | 'vpm' | 'semaphore' | 'mutex';
export const STALL_CAUSES: readonly StallCause[] = ['tmu', 'dma', 'vpm', 'semaphore', 'mutex'];
