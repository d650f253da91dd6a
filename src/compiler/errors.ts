// The compiler's error: a kernel it cannot translate, with the kernel named in the message.

export class CompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompileError';
  }
}
