// The parts of the WebAssembly JavaScript API the emulator uses. Node provides WebAssembly as a
// global, but TypeScript declares it only in the DOM and web-worker libraries, which this
// project does not load (tsconfig's lib is ES2024 and types are Node's).
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array<ArrayBuffer>);
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  function validate(bytes: Uint8Array<ArrayBuffer>): boolean;
}
