# out[i] = a[i] + b[i] for n vectors of 16 floats: TMU loads, VPM writes, DMA stores.
# uniforms: a, b, out (bus addresses), n (vectors), row (this QPU's VPM row, 0-63)
    mov ra0, unif               # a
    mov ra1, unif               # b
    mov ra2, unif               # out
    mov ra3, unif               # n
    mov ra8, unif               # VPM row
    shl r0, elem_num, 2         # byte offset of each lane
    add ra4, ra0, r0            # &a[lane]
    add ra5, ra1, r0            # &b[lane]
    ldi r2, 64                  # bytes per vector
    ldi r3, 0xa00               # VPM write setup: horizontal, 32-bit, row 0
    add ra6, r3, ra8            #   ... this QPU's row
    ldi r3, 0x80904000          # DMA store setup: 1 row of 16 words, horizontal
    shl r1, ra8, 7              #   VPM base = row * 16, in bits 13:3
    add ra7, r3, r1
loop:
    mov tmu0_s, ra4             # request a[i..i+15]
    mov tmu0_s, ra5             # request b[i..i+15]
    add ra4, ra4, r2
    add ra5, ra5, r2
    ldtmu0                      # r4 = a
    mov r1, r4; ldtmu0          # r1 = a, r4 = b
    read vw_wait                # the previous store has left the VPM
    mov vw_setup, ra6
    fadd vpm, r1, r4
    mov vw_setup, ra7
    mov vw_addr, ra2            # store the row to out
    add ra2, ra2, r2
    sub.setf ra3, ra3, 1
    brr.anynz -, loop
    nop
    nop
    nop
    read vw_wait
    mov host_int, 1
    nop.tend
    nop
    nop
