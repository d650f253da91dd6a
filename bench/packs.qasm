# bench/emulator.ts's case for the pack and unpack paths: a loop of regfile-A packs (16-bit,
# bytes, saturating), unpacks (16-bit float, byte) and the mul ALU's colour pack, 20,000 times.
# Uniforms: none.
    ldi ra0, 20000
    ldi rb1, 0x12345678
    ldi ra2, 0x3f800000
    ldi ra9, 0x12345678
loop:
    sub.setf ra0, ra0, 1
    add ra3.16a, ra9, 1         ; nop
    fmul r0.8888c, ra9, ra9
    add ra4.8b, rb1, ra2        ; nop
    add ra5.8888s, rb1, rb1     ; nop
    fadd r1, ra3.16b, ra3.16b   ; nop
    add r2, ra4.8a, ra4.8a      ; nop
    brr.anynz -, loop
    add ra6.16bs, rb1, r1       ; nop
    sub ra7.8cs, rb1, r2        ; nop
    add ra8.32s, rb1, rb1       ; nop
    mov host_int, 1
    thrend
    nop
    nop
