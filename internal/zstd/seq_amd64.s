//go:build amd64 && !purego

#include "textflag.h"

// func decodeSeqsBMI2(st *seqState, seqs []seq) int
//
// Registers: SI the stream at st.at, DI its 8 bytes (value), R8 the bits
// of them used; R9, R10, R11 the literal-length, offset and match-length
// tables, R12, R13, R14 their states; R15 the next seq. AX, BX, CX, DX
// are scratch. On the stack: 0 the end of seqs, 8 the stream's 16th
// byte, 16, 24, 32 the repeat offsets.
TEXT ·decodeSeqsBMI2(SB), NOSPLIT, $40-40
	MOVQ st+0(FP), AX
	MOVQ seqs_base+8(FP), R15
	MOVQ seqs_len+16(FP), BX
	LEAQ (BX)(BX*2), BX
	LEAQ (R15)(BX*4), BX
	MOVQ BX, 0(SP)
	MOVQ 0(AX), SI
	LEAQ 16(SI), BX
	MOVQ BX, 8(SP)
	ADDQ 8(AX), SI
	MOVQ 16(AX), DI
	MOVQ 24(AX), R8
	MOVQ 32(AX), R9
	MOVQ 40(AX), R10
	MOVQ 48(AX), R11
	MOVQ 56(AX), R12
	MOVQ 64(AX), R13
	MOVQ 72(AX), R14
	MOVQ 80(AX), BX
	MOVQ BX, 16(SP)
	MOVQ 88(AX), BX
	MOVQ BX, 24(SP)
	MOVQ 96(AX), BX
	MOVQ BX, 32(SP)

loop:
	CMPQ R15, 0(SP)
	JAE  done
	CMPQ SI, 8(SP)
	JB   done

	// Refill: at -= used/8, used %= 8.
	MOVQ R8, AX
	SHRQ $3, AX
	SUBQ AX, SI
	ANDQ $7, R8
	MOVQ (SI), DI

	// The offset's and the match length's extra bits in one read.
	MOVBQZX 6(R10)(R13*8), AX // offset's extra bits
	MOVBQZX 6(R11)(R14*8), BX // match length's
	MOVBQZX 6(R9)(R12*8), CX  // literal length's
	SHLXQ   R8, DI, DX
	SHRQ    $1, DX
	ADDQ    BX, AX            // om
	ADDQ    AX, R8
	ADDQ    AX, CX            // all three
	XORQ    $63, AX
	SHRXQ   AX, DX, DX        // the om bits
	BZHIQ   BX, DX, AX
	ADDL    0(R11)(R14*8), AX // ml
	MOVL    AX, 4(R15)
	SHRXQ   BX, DX, DX
	MOVL    0(R10)(R13*8), AX
	ADDQ    AX, DX            // the offset value
	CMPQ    CX, $30
	JBE     literal
	MOVQ    R8, AX
	SHRQ    $3, AX
	SUBQ    AX, SI
	ANDQ    $7, R8
	MOVQ    (SI), DI

literal:
	MOVBQZX 6(R9)(R12*8), BX
	SHLXQ   R8, DI, CX
	SHRQ    $1, CX
	ADDQ    BX, R8
	XORQ    $63, BX
	SHRXQ   BX, CX, CX
	ADDL    0(R9)(R12*8), CX // ll
	MOVL    CX, 0(R15)

	MOVBQZX 6(R10)(R13*8), AX
	CMPQ    AX, $1
	JBE     repeat
	SUBQ    $3, DX

newoff:
	MOVQ 24(SP), AX
	MOVQ AX, 32(SP)
	MOVQ 16(SP), AX
	MOVQ AX, 24(SP)
	MOVQ DX, 16(SP)

store:
	MOVL DX, 8(R15)

	// The three state updates in one read: LL's bits first, then ML's,
	// then OF's.
	SHLXQ   R8, DI, DX
	SHRQ    $1, DX
	MOVBQZX 7(R9)(R12*8), AX
	MOVBQZX 7(R11)(R14*8), BX
	MOVBQZX 7(R10)(R13*8), CX
	ADDQ    AX, R8
	ADDQ    BX, R8
	ADDQ    CX, R8
	ADDQ    BX, AX
	ADDQ    CX, AX
	XORQ    $63, AX
	SHRXQ   AX, DX, DX
	BZHIQ   CX, DX, AX
	MOVWQZX 4(R10)(R13*8), R13
	ADDQ    AX, R13
	ANDQ    $511, R13
	SHRXQ   CX, DX, DX
	BZHIQ   BX, DX, AX
	MOVWQZX 4(R11)(R14*8), R14
	ADDQ    AX, R14
	ANDQ    $511, R14
	SHRXQ   BX, DX, DX
	MOVWQZX 4(R9)(R12*8), R12
	ADDQ    DX, R12
	ANDQ    $511, R12
	ADDQ    $12, R15
	JMP     loop

repeat:
	// DX is 1, 2 or 3; one more when the literal length is zero.
	TESTL CX, CX
	JNZ   rep1
	INCQ  DX

rep1:
	CMPQ DX, $1
	JNE  rep2
	MOVQ 16(SP), DX
	JMP  store

rep2:
	CMPQ DX, $2
	JNE  rep3
	MOVQ 24(SP), DX
	MOVQ 16(SP), AX
	MOVQ AX, 24(SP)
	MOVQ DX, 16(SP)
	JMP  store

rep3:
	CMPQ DX, $3
	JNE  rep4
	MOVQ 32(SP), DX
	JMP  newoff

rep4:
	MOVQ 16(SP), DX
	DECQ DX
	JNZ  newoff
	MOVQ st+0(FP), AX
	MOVB $1, 104(AX)

done:
	MOVQ st+0(FP), AX
	MOVQ 0(AX), BX
	SUBQ BX, SI
	MOVQ SI, 8(AX)
	MOVQ DI, 16(AX)
	MOVQ R8, 24(AX)
	MOVQ R12, 56(AX)
	MOVQ R13, 64(AX)
	MOVQ R14, 72(AX)
	MOVQ 16(SP), BX
	MOVQ BX, 80(AX)
	MOVQ 24(SP), BX
	MOVQ BX, 88(AX)
	MOVQ 32(SP), BX
	MOVQ BX, 96(AX)
	MOVQ seqs_base+8(FP), BX
	SUBQ BX, R15
	MOVQ R15, AX
	MOVQ $0xaaaaaaaaaaaaaaab, BX
	MULQ BX
	SHRQ $3, DX
	MOVQ DX, ret+32(FP)
	RET
