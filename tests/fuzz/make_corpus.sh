#!/usr/bin/env bash
# tests/fuzz/make_corpus.sh: (re)generate the seed corpora of the fuzz
# targets that are not hand-written: corpus/{plan,decode,lackey,elf}/ and
# the kallsyms/System.map seeds of corpus/symbols/.  The result is committed;
# run this again only to change the seeds.  Needs gcc and python3; the
# cross compilers (aarch64, big-endian powerpc64) are used when present.
#
# Byte layouts of the binary seeds follow the readers at the top of
# fuzz_plan.c / fuzz_decode.c (fz_cpu, fz_addr, fz_len, fill_regs, ...):
# little-endian integers, a missing byte reads as 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
c=$here/corpus
mkdir -p "$c/plan" "$c/decode" "$c/lackey" "$c/elf" "$c/symbols"

# ---- plan / decode: binary request and register seeds --------------------
python3 - "$c" <<'EOF'
import struct, sys, os
c = sys.argv[1]
NPRESETS = 10          # hwbp_cpu_preset_name(0..9); 10 = arm64 from DFR0
u8 = lambda v: struct.pack('<B', v & 0xff)
u16 = lambda v: struct.pack('<H', v & 0xffff)
u64 = lambda v: struct.pack('<Q', v & 0xffffffffffffffff)

def cpu(sel):
    # preset index, or the DFR0 path with a 16/16-slot Armv8.2 model
    return u8(sel) if sel < NPRESETS else u8(NPRESETS) + u64(0x10f0f008)

def write(d, name, data):
    with open(os.path.join(c, d, name), 'wb') as f:
        f.write(data)

R, W, RW, X = 0, 1, 2, 3   # indices into the targets' type tables
# (addr mode, d, extra, len mode, b, extra, type, flags, scope, free)
reqs = {
    'rw8':      (1, 0x1000, b'', 1, 7, b'', RW, 0, 0, 0),
    'w13-odd':  (1, 0x1003, b'', 1, 12, b'', W, 0, 1, 1),
    'x4':       (1, 0x1000, b'', 1, 3, b'', X, 0, 1, 0),
    'r-widen':  (1, 0x2000, b'', 1, 3, b'', R, 1, 0, 0),
    'kernel':   (2, 0x8000, b'', 2, 6, b'', RW, 0, 2, 0),
    'top':      (4, 0x10, b'', 1, 15, b'', W, 4, 0, 2),
    'big':      (5, 12, u64(0x7fff0000), 2, 20, b'', RW, 0, 1, 0),
}
for sel in range(NPRESETS + 1):
    for name, (am, d, ax, lm, lb, lx, t, fl, sc, fr) in reqs.items():
        data = cpu(sel) + u8(am) + u16(d) + ax + u8(lm) + u8(lb) + lx
        data += u8(t) + u8(fl) + u8(sc) + u8(fr)
        write('plan', '%02d-%s' % (sel, name), data)

# decode, direct path: two pieces encoded (fill_regs mode 2), then a
# status shaped near the first (fill_status), per CPU.
for sel in range(NPRESETS + 1):
    regs = u8(2) + u8(2)
    regs += u8(0x24) + u64(0x1000) + u8(0)   # 8 bytes RW, slot 0
    regs += u8(0x13) + u64(0x2000) + u8(1)   # 4 bytes W, slot 1
    regs += u8(0)                            # no XOR
    for kind, st in (('dsi', u8(0x81) + u16(0) + u8(0x01) + u8(0x02)),
                     ('store', u8(0x89) + u16(4) + u8(0x42) + u8(0)),
                     ('trace', u8(0x95) + u16(0) + u8(0x01) + u8(0x00)),
                     ('raw', u8(0x00) + u16(0) + u64(0x1000) + u64(0xd2000022) + u64(0x1000))):
        write('decode', '%02d-raw-%s' % (sel, kind), u8(0) + cpu(sel) + regs + u8(0) + u8(0) + st)
    # by name (fill_regs mode 0): the first two registers set, the rest
    # and the status read as zero (missing bytes)
    write('decode', '%02d-named' % sel, u8(0) + cpu(sel) + u8(0) + u8(1) + u64(0x1000) +
          u8(1) + u64(0x2000))

# decode, context path: three requests around 0x10000, one CPU / all / task
for sel in range(NPRESETS + 1):
    data = u8(1) + cpu(sel) + u64(0x10000) + u8(3)
    data += u8(0x02) + u8(0x08) + u16(0) + u8(7)       # RW 8 bytes, CPU 0
    data += u8(0x01) + u8(0x02) + u16(0x10) + u8(3)    # W 4 bytes, all CPUs
    data += u8(0x03) + u8(0x0c) + u16(0x40) + u8(0)    # X, task
    data += u8(0x0c) + u8(0x81) + u16(0) + u8(1) + u8(0x02)  # mode, status
    data += u8(0) + u8(8)                              # access: +0, 8 bytes
    write('decode', '%02d-ctx' % sel, data)
EOF

# ---- lackey: traces as valgrind --tool=lackey --trace-mem=yes prints them
cat > "$c/lackey/basic" <<'EOF'
==12345== Lackey, an example Valgrind tool
==12345== Command: ./prog
==12345==
I  04011a6,4
 S 1ffefffd48,8
I  04011aa,3
 L 04c4d0,4
I  04011ad,7
 M 04c4d4,4
I  0401b20,5
 L 1ffefffd40,16
==12345==
EOF
printf 'I  0000000004011a6,1\r\n L 7ff000,64\r\n S 0,1\n' > "$c/lackey/crlf"
printf 'I  401000,3\n S ffffffffffffffff,8\n L 1,65\n L 1,0\n L -1,8\n L 0x10,8\n L  10,8\nI 402000,2\n M 10,8' > "$c/lackey/edges"
{ printf 'I  401000,3\n'; head -c 300 /dev/zero | tr '\0' 'x'; printf ' L 1000,8\n S 2000,4\n'; } > "$c/lackey/longline"

# ---- elf: small real ELF files and truncated variants --------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOF'
int counter;
static int hidden = 3;
const int ro = 5;
int work(int x) { return x * hidden + ro; }
int main(int argc, char **argv) { (void)argv; counter += work(argc); return counter; }
EOF
small='-Wl,-z,noseparate-code -Wl,-z,norelro'
gcc -Os -g -fPIE -pie $small "$tmp/t.c" -o "$c/elf/pie-g"
gcc -Os -s -fPIE -pie $small "$tmp/t.c" -o "$c/elf/pie-stripped"   # .dynsym only
gcc -Os -no-pie -Wl,-z,noseparate-code "$tmp/t.c" -o "$c/elf/static-exec" # ET_EXEC
gcc -Os -c "$tmp/t.c" -o "$c/elf/obj64-rel"
strip -o "$c/elf/nosymtab-rel" "$c/elf/obj64-rel"                       # no symbol table at all
if gcc -m32 -Os -c "$tmp/t.c" -o "$tmp/o32.o" 2>/dev/null; then cp "$tmp/o32.o" "$c/elf/obj32-rel"; fi
if command -v aarch64-linux-gnu-gcc >/dev/null; then aarch64-linux-gnu-gcc -Os -c "$tmp/t.c" -o "$c/elf/aarch64-rel"; fi
if command -v powerpc64-linux-gnu-gcc >/dev/null; then powerpc64-linux-gnu-gcc -Os -c "$tmp/t.c" -o "$c/elf/ppc64be-rel"; fi
for n in 16 64 700 2000; do head -c $n "$c/elf/pie-g" > "$c/elf/pie-g.trunc$n"; done
head -c 1000 "$c/elf/obj64-rel" > "$c/elf/obj64-rel.trunc1000"
printf '\177ELF' > "$c/elf/magic-only"

# ---- symbols: kallsyms and System.map text --------------------------------
cat > "$c/symbols/kallsyms-min.txt" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000000 T _text
ffffffff81001000 t early_idt_handler_array
ffffffff81200000 D pid_max
ffffffff81200008 d jiffies_lock
ffffffff81300000 B jiffies
ffffffff81300040 b __bss_stop
ffffffffc0000000 t my_fn	[mymod]
ffffffffc0001000 d my_var	[mymod]
EOF
cat > "$c/symbols/system-map-min.txt" <<'EOF'
0000000000000000 A VDSO32_PRELINK
ffffffff81000000 T startup_64
ffffffff81000000 T _stext
ffffffff810001f0 T secondary_startup_64
ffffffff81e00000 R __start_rodata
ffffffff82000000 D init_task
ffffffff82a00000 B __bss_start
ffffffff82c00000 B _end
EOF
printf 'ffffffff81000000 T _stext\r\nffffffff81000010 W weak_fn\r\n' > "$c/symbols/kallsyms-crlf.txt"
printf '0000000000000000 T hidden\n0000000000000000 t zero_addr\nffffffffffffffff T top\n' > "$c/symbols/kallsyms-zeroed.txt"
