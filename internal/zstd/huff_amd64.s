//go:build amd64 && !purego

#include "textflag.h"

// SYM decodes one symbol of the stream whose 8 bytes are in BX and whose
// used bits are in u (its low byte: the entries' symbols pile up above
// it), and stores it at dst: AX is the table index, then the entry.
#define SYM(u, dst) \
	SHLXQ   u, BX, AX; \
	SHRQ    $53, AX; \
	MOVWQZX (CX)(AX*2), AX; \
	ADDQ    AX, u; \
	MOVB    AH, dst

// REFILL moves the stream at p back by the whole bytes of u used (ub is
// u's low byte) and loads its 8 bytes into BX.
#define REFILL(p, u, ub) \
	MOVBQZX ub, u; \
	MOVQ    u, AX; \
	SHRQ    $3, AX; \
	SUBQ    AX, p; \
	ANDQ    $7, u; \
	MOVQ    (p), BX

// func huff4BMI2(t *huffTable, out *byte, seg int, st *huffState, rounds int)
//
// Registers: CX the table, SI and DI the next byte of the first and third
// outputs (the second and fourth are DX further), R8-R11 the streams'
// read positions, R12-R15 their used bits; BX a stream's 8 bytes, AX the
// entry. 0(SP) counts the rounds down.
TEXT ·huff4BMI2(SB), NOSPLIT, $8-40
	MOVQ rounds+32(FP), AX
	TESTQ AX, AX
	JLE  none
	MOVQ AX, 0(SP)
	MOVQ t+0(FP), CX
	MOVQ out+8(FP), SI
	MOVQ seg+16(FP), DX
	LEAQ (SI)(DX*2), DI
	MOVQ st+24(FP), AX
	MOVQ 0(AX), R8
	ADDQ 32(AX), R8
	MOVQ 8(AX), R9
	ADDQ 40(AX), R9
	MOVQ 16(AX), R10
	ADDQ 48(AX), R10
	MOVQ 24(AX), R11
	ADDQ 56(AX), R11
	MOVQ 64(AX), R12
	MOVQ 72(AX), R13
	MOVQ 80(AX), R14
	MOVQ 88(AX), R15

round:
	REFILL(R8, R12, R12B)
	SYM(R12, 0(SI))
	SYM(R12, 1(SI))
	SYM(R12, 2(SI))
	SYM(R12, 3(SI))
	REFILL(R9, R13, R13B)
	SYM(R13, 0(SI)(DX*1))
	SYM(R13, 1(SI)(DX*1))
	SYM(R13, 2(SI)(DX*1))
	SYM(R13, 3(SI)(DX*1))
	REFILL(R10, R14, R14B)
	SYM(R14, 0(DI))
	SYM(R14, 1(DI))
	SYM(R14, 2(DI))
	SYM(R14, 3(DI))
	REFILL(R11, R15, R15B)
	SYM(R15, 0(DI)(DX*1))
	SYM(R15, 1(DI)(DX*1))
	SYM(R15, 2(DI)(DX*1))
	SYM(R15, 3(DI)(DX*1))
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ 0(SP)
	JNZ  round

	MOVQ    st+24(FP), AX
	SUBQ    0(AX), R8
	MOVQ    R8, 32(AX)
	SUBQ    8(AX), R9
	MOVQ    R9, 40(AX)
	SUBQ    16(AX), R10
	MOVQ    R10, 48(AX)
	SUBQ    24(AX), R11
	MOVQ    R11, 56(AX)
	MOVBQZX R12B, R12
	MOVQ    R12, 64(AX)
	MOVBQZX R13B, R13
	MOVQ    R13, 72(AX)
	MOVBQZX R14B, R14
	MOVQ    R14, 80(AX)
	MOVBQZX R15B, R15
	MOVQ    R15, 88(AX)

none:
	RET
