//go:build !purego

#include "textflag.h"

// func castagnoli3(crcA, crcB, crcC uint32, a, b, c *byte, words int) (retA, retB, retC uint32)
//
// The three chains are independent, so the CPU overlaps their CRC32Q
// (latency 3, one a cycle): three buffers cost about what one does on a
// single chain.
TEXT ·castagnoli3(SB), NOSPLIT, $0-60
	MOVL crcA+0(FP), AX
	MOVL crcB+4(FP), CX
	MOVL crcC+8(FP), DX
	MOVQ a+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ c+32(FP), R10
	MOVQ words+40(FP), R11
	SHLQ $3, R11 // end, in bytes
	MOVQ R11, R12
	ANDQ $-16, R12 // end of the two-word steps
	XORQ BX, BX
	TESTQ R12, R12
	JZ   last

pairs:
	CRC32Q (R8)(BX*1), AX
	CRC32Q (R9)(BX*1), CX
	CRC32Q (R10)(BX*1), DX
	CRC32Q 8(R8)(BX*1), AX
	CRC32Q 8(R9)(BX*1), CX
	CRC32Q 8(R10)(BX*1), DX
	ADDQ   $16, BX
	CMPQ   BX, R12
	JB     pairs

last:
	CMPQ   BX, R11
	JAE    done
	CRC32Q (R8)(BX*1), AX
	CRC32Q (R9)(BX*1), CX
	CRC32Q (R10)(BX*1), DX

done:
	MOVL AX, retA+48(FP)
	MOVL CX, retB+52(FP)
	MOVL DX, retC+56(FP)
	RET
