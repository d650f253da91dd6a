# Iterates z = z * z + c for 16 points of a line of the Mandelbrot set and counts, per lane,
# the iterations before |z| >= 2 (at most n); z stops changing in a lane once it escapes.
# A workload of ALU instructions only.
# uniforms: x0, dx (floats), y, n (iterations), out (bus address), row (VPM row)
    mov ra0, unif               # x0
    mov ra1, unif               # dx
    mov ra2, unif               # y (ci)
    mov ra3, unif               # n
    mov ra9, unif               # out
    mov ra8, unif               # VPM row
    itof r0, elem_num
    fmul r1, r0, ra1            # lane * dx
    fadd ra4, r1, ra0           # cr = x0 + lane * dx
    mov r0, 0                   # zr
    mov r1, 0                   # zi
    mov r3, 0                   # count
loop:
    fmul ra10, r1, r1           # zi^2
    fmul ra11, r0, r1           # zr * zi
    fmul r2, r0, r0             # zr^2
    fadd r2, r2, ra10           # |z|^2
    fsub.setf nop, r2, 4.0      # N set in the lanes still inside (|z|^2 < 4)
    fmul r2, r0, r0
    fsub r2, r2, ra10           # zr^2 - zi^2
    fadd.ns r0, r2, ra4         # zr' = zr^2 - zi^2 + cr, where inside
    fadd r2, ra11, ra11         # 2 zr zi
    fadd.ns r1, r2, ra2         # zi' = 2 zr zi + ci, where inside
    add.ns r3, r3, 1            # count the lanes still inside
    sub.setf ra3, ra3, 1
    brr.anynz -, loop
    nop
    nop
    nop
    ldi r2, 0xa00
    add vw_setup, r2, ra8
    mov vpm, r3
    ldi r2, 0x80904000
    shl r1, ra8, 7
    add vw_setup, r2, r1
    mov vw_addr, ra9
    read vw_wait
    nop.tend
    nop
    nop
