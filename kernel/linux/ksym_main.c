// SPDX-License-Identifier: MIT
/*
 * hwbp_ksym.ko: hwbp's core inside a Linux kernel.  At load, the core
 * checks itself where it now runs: for every CPU preset it plans an
 * unaligned write watch (hwbp_plan(): split into naturally aligned
 * pieces), programs each piece into a register image (hwbp_encode_piece())
 * and reads it back (hwbp_decode_slot()); the pieces read back must be the
 * plan's and must cover the request exactly.  A failure refuses the load
 * (-EINVAL, with the preset and step in the kernel log), so that a core
 * miscompiled under the kernel's flags never arms a breakpoint.
 *
 * Context: module init only (process context, may sleep; nothing here
 * does).  The core allocates nothing and takes no lock.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <hwbp/hwbp.h>

/* 0x1003..0x1006: three pieces on every arch with byte-granular slots
 * (1 + 2 + 1 on x86; arm64's BAS and powerpc's DAWR cover it otherwise). */
#define CHECK_ADDR 0xffff800000001003ull
#define CHECK_LEN 4u

static int check_preset(const char *name)
{
	struct hwbp_request req = { CHECK_ADDR, CHECK_LEN, HWBP_W, HWBP_SCOPE_KERNEL, 0 };
	struct hwbp_plan plan;
	struct hwbp_regs regs;
	struct hwbp_cpu cpu;
	uint64_t covered = 0;
	unsigned i;
	int ret;

	ret = hwbp_cpu_preset(name, &cpu);
	if (ret)
		return ret;
	/* (a 32-bit CPU has no such address, -ERANGE: a kernel address of
	 * its own, 3G/1G split) */
	if (hwbp_request_check(&cpu, &req))
		req.addr = 0xc0001003u;
	ret = hwbp_plan(&cpu, &req, 0, &plan);
	if (ret == 0)
		ret = hwbp_regs_reset(&cpu, &regs);
	for (i = 0; ret == 0 && i < plan.n; i++)
		ret = hwbp_encode_piece(&cpu, &regs, i, plan.inst, &plan.piece[i], req.scope, false);
	for (i = 0; ret == 0 && i < plan.n; i++) {
		struct hwbp_piece back;
		enum hwbp_scope scope;

		ret = hwbp_decode_slot(&cpu, &regs, i, plan.inst, &back, &scope);
		if (ret != 1 || back.addr != plan.piece[i].addr || back.len != plan.piece[i].len) {
			pr_err("hwbp_ksym: %s: slot %u reads back %d 0x%llx/%llu, planned 0x%llx/%llu\n",
			       name, i, ret, (unsigned long long)back.addr,
			       (unsigned long long)back.len,
			       (unsigned long long)plan.piece[i].addr,
			       (unsigned long long)plan.piece[i].len);
			return -EINVAL;
		}
		covered += plan.piece[i].cover_len;
		ret = 0;
	}
	if (ret == 0 && (covered != req.len || (plan.exact && plan.extra_bytes))) {
		pr_err("hwbp_ksym: %s: the pieces cover %llu of %u bytes\n", name,
		       (unsigned long long)covered, CHECK_LEN);
		ret = -EINVAL;
	}
	if (ret)
		pr_err("hwbp_ksym: %s: %s\n", name, hwbp_errno_name(ret));
	return ret;
}

static int __init hwbp_ksym_init(void)
{
	const char *name;
	unsigned i, n = 0;
	int ret;

	for (i = 0; (name = hwbp_cpu_preset_name(i)); i++) {
		ret = check_preset(name);
		if (ret)
			return -EINVAL;
		n++;
	}
	pr_info("hwbp_ksym: hwbp %s core: %u CPU presets planned, encoded and decoded back\n",
		hwbp_version(), n);
	return 0;
}

static void __exit hwbp_ksym_exit(void)
{
}

module_init(hwbp_ksym_init);
module_exit(hwbp_ksym_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("hwbp's core in the kernel: the ksym tracer's base");
