/* SPDX-License-Identifier: MIT */
/*
 * RISC-V debug triggers (the Sdtrig extension of the RISC-V Debug
 * Specification): the register layout hwbp's encoders and decoders follow,
 * for code that models or programs the hardware itself (a simulator, an
 * M-mode or S-mode kernel's glue).  Field positions of tdata1 for the
 * address/data match triggers, mcontrol (type 2, Debug spec 0.13) and
 * mcontrol6 (type 6, Debug spec 1.0), of tinfo and tcontrol, the CSR
 * numbers, and the feature bits of a CPU model (struct hwbp_cpu's
 * u.riscv.features).  Only facts of the architecture: no state, no
 * functions with effects.  RV64 (XLEN = 64) throughout.
 *
 * Sources: The RISC-V Debug Specification 1.0 (ratified, Sdtrig), §5.5
 * "Trigger Module Registers" (tselect 0x7a0, tdata1 0x7a1, tdata2 0x7a2,
 * tdata3 0x7a3, tinfo 0x7a4, tcontrol 0x7a5; mcontrol §5.5.10, mcontrol6
 * §5.5.11), and the Debug spec 0.13.2 §5.2.9 for mcontrol.
 */
#ifndef HWBP_RISCV_H
#define HWBP_RISCV_H

#ifndef __KERNEL__   /* a Linux module: <hwbp/hwbp.h> takes <linux/types.h> */
#include <stdbool.h>
#include <stdint.h>
#endif

#include <hwbp/hwbp.h>

/* CSR numbers. */
#define HWBP_RISCV_CSR_TSELECT 0x7a0
#define HWBP_RISCV_CSR_TDATA1 0x7a1
#define HWBP_RISCV_CSR_TDATA2 0x7a2
#define HWBP_RISCV_CSR_TDATA3 0x7a3
#define HWBP_RISCV_CSR_TINFO 0x7a4
#define HWBP_RISCV_CSR_TCONTROL 0x7a5

/* tdata1, every type: type in bits XLEN-1:XLEN-4, dmode below it. */
#define HWBP_RISCV_TDATA1_TYPE_SHIFT 60
#define HWBP_RISCV_TDATA1_TYPE_MASK 0xfull
#define HWBP_RISCV_TDATA1_DMODE (1ull << 59)
#define HWBP_RISCV_TYPE_NONE 0        /* no trigger at this tselect */
#define HWBP_RISCV_TYPE_MCONTROL 2    /* address/data match, 0.13 */
#define HWBP_RISCV_TYPE_ICOUNT 3
#define HWBP_RISCV_TYPE_ITRIGGER 4
#define HWBP_RISCV_TYPE_ETRIGGER 5
#define HWBP_RISCV_TYPE_MCONTROL6 6   /* address/data match, 1.0 */
#define HWBP_RISCV_TYPE_TMEXTTRIGGER 7
#define HWBP_RISCV_TYPE_DISABLED 15   /* exists, disabled (1.0) */

/* Fields common to mcontrol and mcontrol6 (bits 11:0). */
#define HWBP_RISCV_MC_LOAD (1ull << 0)
#define HWBP_RISCV_MC_STORE (1ull << 1)
#define HWBP_RISCV_MC_EXECUTE (1ull << 2)
#define HWBP_RISCV_MC_U (1ull << 3)
#define HWBP_RISCV_MC_S (1ull << 4)
#define HWBP_RISCV_MC_M (1ull << 6)
#define HWBP_RISCV_MC_MATCH_SHIFT 7       /* bits 10:7 */
#define HWBP_RISCV_MC_MATCH_MASK 0xfull
#define HWBP_RISCV_MC_CHAIN (1ull << 11)
#define HWBP_RISCV_MC_ACTION_SHIFT 12     /* bits 15:12: 0 breakpoint exception */
#define HWBP_RISCV_MC_ACTION_MASK 0xfull

/* match values (both types). */
#define HWBP_RISCV_MATCH_EQUAL 0
#define HWBP_RISCV_MATCH_NAPOT 1
#define HWBP_RISCV_MATCH_GE 2
#define HWBP_RISCV_MATCH_LT 3
#define HWBP_RISCV_MATCH_MASK_LOW 4
#define HWBP_RISCV_MATCH_MASK_HIGH 5
/* 8..13: the same, negated (1.0) */

/* mcontrol (type 2) only. */
#define HWBP_RISCV_MC2_SIZELO_SHIFT 16    /* bits 17:16 */
#define HWBP_RISCV_MC2_TIMING (1ull << 18)
#define HWBP_RISCV_MC2_SELECT (1ull << 19)
#define HWBP_RISCV_MC2_HIT (1ull << 20)
#define HWBP_RISCV_MC2_SIZEHI_SHIFT 21    /* bits 22:21 (RV64) */
#define HWBP_RISCV_MC2_MASKMAX_SHIFT 53   /* bits 58:53: log2 of the largest NAPOT */
#define HWBP_RISCV_MC2_MASKMAX_MASK 0x3full

/* mcontrol6 (type 6) only. */
#define HWBP_RISCV_MC6_UNCERTAINEN (1ull << 5)
#define HWBP_RISCV_MC6_SIZE_SHIFT 16      /* bits 18:16 */
#define HWBP_RISCV_MC6_SIZE_MASK 0x7ull
#define HWBP_RISCV_MC6_SELECT (1ull << 21)
#define HWBP_RISCV_MC6_HIT0 (1ull << 22)
#define HWBP_RISCV_MC6_VU (1ull << 23)
#define HWBP_RISCV_MC6_VS (1ull << 24)
#define HWBP_RISCV_MC6_HIT1 (1ull << 25)
#define HWBP_RISCV_MC6_UNCERTAIN (1ull << 26)

/* tinfo: bits 15:0 the types this trigger supports (bit t: type t); in
 * 1.0, bits 31:24 the version (0: 0.13/1.0 draft, 1: 1.0). */
#define HWBP_RISCV_TINFO_INFO_MASK 0xffffull
#define HWBP_RISCV_TINFO_VERSION_SHIFT 24

/* tcontrol: M-mode trigger enable and its saved copy (mte, mpte). */
#define HWBP_RISCV_TCONTROL_MTE (1ull << 3)
#define HWBP_RISCV_TCONTROL_MPTE (1ull << 7)

/* Exception cause of a trigger whose action is 0. */
#define HWBP_RISCV_CAUSE_BREAKPOINT 3
#define HWBP_RISCV_CAUSE_ILLEGAL 2      /* illegal instruction (a CSR without the privilege) */

/*
 * What a CPU model's triggers can do (struct hwbp_cpu u.riscv.features),
 * beyond exact-address match of execute, load and store with M/S/U
 * enables, which every model has.
 */
#define HWBP_RISCV_F_NAPOT (1u << 0)       /* match = 1: a naturally aligned power of two */
#define HWBP_RISCV_F_GE_LT (1u << 1)       /* match = 2, 3: >= and < */
#define HWBP_RISCV_F_CHAIN (1u << 2)       /* chain: two triggers match together */
#define HWBP_RISCV_F_MASK (1u << 3)        /* match = 4, 5: masked halves */
#define HWBP_RISCV_F_SELECT (1u << 4)      /* select = 1: match the data value */
#define HWBP_RISCV_F_TIMING_AFTER (1u << 5) /* mcontrol timing = 1 honoured */
#define HWBP_RISCV_F_HIT (1u << 6)         /* hit bits report which trigger fired */
#define HWBP_RISCV_F_SIZE (1u << 7)        /* the size field is honoured (else: any size) */
#define HWBP_RISCV_F_TVAL (1u << 8)        /* mtval/stval hold the matching address */
#define HWBP_RISCV_F_SMODE (1u << 9)       /* the s enable bit exists (S-mode) */
#define HWBP_RISCV_F_UMODE (1u << 10)      /* the u enable bit exists (U-mode) */
/*
 * The size field is taken as a byte count from tdata2, size 0 as XLEN/8
 * bytes: QEMU 10.0 (target/riscv/debug.c, type2_breakpoint_insert() and
 * type6_breakpoint_insert() pass the field's value to
 * cpu_watchpoint_insert() as the length).  Only sizes 1 and 2 then mean
 * what the spec says; hwbp uses 1, 2 and 0 (8 bytes).
 */
#define HWBP_RISCV_F_SIZE_AS_LEN (1u << 11)
/*
 * The kernel runs in S-mode and reaches the triggers through its SBI
 * firmware (the Debug Triggers extension, arch/riscv/glue_sbi.c): the m
 * bit is not the kernel's to set (OpenSBI's install_triggers refuses
 * it, 1.5 to 1.9), so the kernel scope is s alone.
 */
#define HWBP_RISCV_F_SBI (1u << 12)
/* Bits 29:24: log2 of the largest NAPOT range (mcontrol maskmax); 0 when
 * the model has no limit below 2^63 (mcontrol6 has no maskmax). */
#define HWBP_RISCV_F_MASKMAX_SHIFT 24
#define HWBP_RISCV_F_MASKMAX_MASK 0x3fu
#define HWBP_RISCV_F_MASKMAX(k) ((uint32_t)(k) << HWBP_RISCV_F_MASKMAX_SHIFT)

/* Instructions: 2-byte parcels (IALIGN 16 with the C extension). */
#define HWBP_RISCV_INST_LEN 2u

#endif /* HWBP_RISCV_H */
