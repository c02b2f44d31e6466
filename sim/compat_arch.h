/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY (the lead deletes this file at merge): the register-layout
 * names of the public per-arch headers <hwbp/x86.h>, <hwbp/arm64.h> and
 * <hwbp/powerpc.h> that the core is creating, mapped onto today's
 * arch-private headers, so that the sim models already use the public
 * names.  At merge each model includes its public header instead:
 *   sim/x86.c     #include <hwbp/x86.h>
 *   sim/arm64.c   #include <hwbp/arm64.h>
 *   sim/powerpc.c #include <hwbp/powerpc.h>
 * Only the names the models use are listed.
 */
#ifndef HWBP_SIM_COMPAT_ARCH_H
#define HWBP_SIM_COMPAT_ARCH_H

#include "../arch/x86/x86.h"
#include "../arch/arm64/arm64.h"
#include "../arch/powerpc/powerpc.h"

/* <hwbp/x86.h> */
#define HWBP_X86_AMD_MASK_MAX HWBPI_X86_AMD_MASK_MAX
#define HWBP_X86_DR6_B_MASK HWBPI_X86_DR6_B_MASK
#define HWBP_X86_DR6_RESET HWBPI_X86_DR6_RESET
#define HWBP_X86_DR7_RESET HWBPI_X86_DR7_RESET
#define HWBP_X86_LEN_8 HWBPI_X86_LEN_8
#define HWBP_X86_RW_IO HWBPI_X86_RW_IO
#define HWBP_X86_RW_RW HWBPI_X86_RW_RW
#define HWBP_X86_RW_W HWBPI_X86_RW_W
#define HWBP_X86_RW_X HWBPI_X86_RW_X
#define HWBP_X86_SLOTS HWBPI_X86_SLOTS
#define hwbp_x86_addr_max hwbpi_x86_addr_max
#define hwbp_x86_en_shift hwbpi_x86_en_shift
#define hwbp_x86_len_bytes hwbpi_x86_len_bytes
#define hwbp_x86_len_shift hwbpi_x86_len_shift
#define hwbp_x86_rw_shift hwbpi_x86_rw_shift

/* <hwbp/arm64.h> */
#define HWBP_ARM64_BCR_BAS_SHIFT HWBPI_ARM64_BCR_BAS_SHIFT
#define HWBP_ARM64_BCR_BT_MASK HWBPI_ARM64_BCR_BT_MASK
#define HWBP_ARM64_BCR_BT_SHIFT HWBPI_ARM64_BCR_BT_SHIFT
#define HWBP_ARM64_CR_E HWBPI_ARM64_CR_E
#define HWBP_ARM64_CR_PAC_MASK HWBPI_ARM64_CR_PAC_MASK
#define HWBP_ARM64_CR_PAC_SHIFT HWBPI_ARM64_CR_PAC_SHIFT
#define HWBP_ARM64_CR_SSC_MASK HWBPI_ARM64_CR_SSC_MASK
#define HWBP_ARM64_CR_SSC_SHIFT HWBPI_ARM64_CR_SSC_SHIFT
#define HWBP_ARM64_MDSCR_KDE HWBPI_ARM64_MDSCR_KDE
#define HWBP_ARM64_MDSCR_MDE HWBPI_ARM64_MDSCR_MDE
#define HWBP_ARM64_PAC_EL0 HWBPI_ARM64_PAC_EL0
#define HWBP_ARM64_PAC_EL1 HWBPI_ARM64_PAC_EL1
#define HWBP_ARM64_WCR_BAS_MASK HWBPI_ARM64_WCR_BAS_MASK
#define HWBP_ARM64_WCR_BAS_SHIFT HWBPI_ARM64_WCR_BAS_SHIFT
#define HWBP_ARM64_WCR_LSC_MASK HWBPI_ARM64_WCR_LSC_MASK
#define HWBP_ARM64_WCR_LSC_SHIFT HWBPI_ARM64_WCR_LSC_SHIFT
#define HWBP_ARM64_WCR_MASK_MASK HWBPI_ARM64_WCR_MASK_MASK
#define HWBP_ARM64_WCR_MASK_SHIFT HWBPI_ARM64_WCR_MASK_SHIFT
#define HWBP_ARM64_WCR_WT HWBPI_ARM64_WCR_WT
#define hwbp_arm64_nbrp hwbpi_arm64_nbrp
#define hwbp_arm64_nwrp hwbpi_arm64_nwrp

/* <hwbp/powerpc.h> */
#define HWBP_PPC_CIABR_PRIV HWBPI_PPC_CIABR_PRIV
#define HWBP_PPC_CIABR_PRIV_HYPER HWBPI_PPC_CIABR_PRIV_HYPER
#define HWBP_PPC_CIABR_PRIV_SUPER HWBPI_PPC_CIABR_PRIV_SUPER
#define HWBP_PPC_CIABR_PRIV_USER HWBPI_PPC_CIABR_PRIV_USER
#define HWBP_PPC_DABRX_BTI HWBPI_PPC_DABRX_BTI
#define HWBP_PPC_DABRX_PRIV HWBPI_PPC_DABRX_PRIV
#define HWBP_PPC_DABR_BT HWBPI_PPC_DABR_BT
#define HWBP_PPC_DABR_DR HWBPI_PPC_DABR_DR
#define HWBP_PPC_DABR_DW HWBPI_PPC_DABR_DW
#define HWBP_PPC_DAWRX_DR HWBPI_PPC_DAWRX_DR
#define HWBP_PPC_DAWRX_DW HWBPI_PPC_DAWRX_DW
#define HWBP_PPC_DAWRX_HYP HWBPI_PPC_DAWRX_HYP
#define HWBP_PPC_DAWRX_MRD_MASK HWBPI_PPC_DAWRX_MRD_MASK
#define HWBP_PPC_DAWRX_MRD_SHIFT HWBPI_PPC_DAWRX_MRD_SHIFT
#define HWBP_PPC_DAWRX_PNH HWBPI_PPC_DAWRX_PNH
#define HWBP_PPC_DAWRX_PRIV HWBPI_PPC_DAWRX_PRIV
#define HWBP_PPC_DAWRX_WT HWBPI_PPC_DAWRX_WT
#define HWBP_PPC_DAWRX_WTI HWBPI_PPC_DAWRX_WTI
#define HWBP_PPC_DSISR_DABRMATCH HWBPI_PPC_DSISR_DABRMATCH
#define HWBP_PPC_DSISR_STORE HWBPI_PPC_DSISR_STORE
#define HWBP_PPC_DW HWBPI_PPC_DW
#define HWBP_PPC_SRR1_CIABR HWBPI_PPC_SRR1_CIABR
#define HWBP_PPC_VEC_DSI HWBPI_PPC_VEC_DSI
#define HWBP_PPC_VEC_TRACE HWBPI_PPC_VEC_TRACE
#define hwbp_powerpc_boundary hwbpi_powerpc_boundary
#define hwbp_powerpc_dabr_mode hwbpi_powerpc_dabr_mode
#define hwbp_powerpc_dawr_index hwbpi_powerpc_dawr_index
#define hwbp_powerpc_has_ciabr hwbpi_powerpc_has_ciabr
#define hwbp_powerpc_has_dawr hwbpi_powerpc_has_dawr
#define hwbp_powerpc_ndata hwbpi_powerpc_ndata

#endif /* HWBP_SIM_COMPAT_ARCH_H */
