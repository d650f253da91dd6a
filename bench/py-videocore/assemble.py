#!/usr/bin/env python3
"""Assembles py-videocore's SGEMM example into the machine code `npm run bench:published --
--py-videocore DIR` runs (bench/published.ts), with py-videocore's own assembler, off a Pi.

    python3 bench/py-videocore/assemble.py TREE DIR

TREE is a checkout of nineties/py-videocore (MIT, (c) 2015 Koichi Nakamura; master 5643470 was
used); DIR gets sgemm.bin, the kernel `sgemm_gpu_code` of examples/sgemm.py as 64-bit
instructions, little-endian: the bytes its Driver.program() copies into GPU memory. Needs
Python 3 and numpy, which the assembler imports. Nothing of py-videocore is part of qpu-ts; this
only runs it. Two things stand in for a Pi:
- videocore.driver, which opens the mailbox and VideoCore shared memory, is replaced by an
  empty module before the example imports it (the assembler does not use it);
- struct's native 'l' and 'L' are 4 bytes on a Pi (32-bit ARM) and 8 on x86-64; the assembler
  packs float bits with them, so those two codes are given the Pi's size.
"""
import importlib.util
import os
import struct
import sys
import types

_pack, _unpack = struct.pack, struct.unpack
_pi = lambda fmt: '=' + fmt if fmt in ('l', 'L') else fmt
struct.pack = lambda fmt, *v: _pack(_pi(fmt), *v)
struct.unpack = lambda fmt, buf: _unpack(_pi(fmt), buf)


def main(tree, out):
    sys.path.insert(0, os.path.abspath(tree))
    import videocore  # noqa: F401  (the package first, then its driver is stood in for)
    driver = types.ModuleType('videocore.driver')
    driver.Driver = None
    sys.modules['videocore.driver'] = driver
    from videocore.assembler import assemble
    path = os.path.join(tree, 'examples', 'sgemm.py')
    spec = importlib.util.spec_from_file_location('sgemm_example', path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    code = bytes(assemble(example.sgemm_gpu_code))
    assert len(code) % 8 == 0
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'sgemm.bin'), 'wb') as f:
        f.write(code)
    print(f'{out}/sgemm.bin: {len(code) // 8} instructions of {path}')


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
