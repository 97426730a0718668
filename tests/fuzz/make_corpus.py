#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_api (tests/fuzz/corpus): a few inputs for
every primitive, the normal paths and the error paths. The byte layout is
described at the top of fuzz_api.c. Usage: make_corpus.py [OUT_DIR]"""
import os
import random
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(out, exist_ok=True)
rnd = random.Random(20240601)

SEL = ["reduce", "scan", "hist_even", "hist_range", "select_flagged", "select_if", "unique",
       "partition_if", "sort", "sort_pairs", "misc"]
TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "badtype10", "badtype-1"]


def seed(name, sel, typ=4, param=0, seq=0, ctx=0, pm=0, dm=0, n=16, nbins=8, s1=b"", s2=b"", ovl=0, pool=None,
         big=False):
    if sel in (8, 9) and not name.startswith("sort_bad_order"):
        while param % 3 == 2:  # keep the order valid; (param >> 2) % 8 (value_size) is unchanged
            param += 32
    flags = seq | ctx << 1 | pm << 2 | dm << 5
    nv = (0x8000 | n) if big else n
    head = bytes([sel, typ, param & 0xFF, flags]) + struct.pack("<HH", nv, nbins)
    head += (s1 + bytes(8))[:8] + (s2 + bytes(8))[:8] + struct.pack("<H", ovl)
    if pool is None:
        pool = bytes(rnd.randrange(256) for _ in range(48))
    data = head + pool
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


# reduce and scan: every type, every operator somewhere, both kinds, in place, overlaps
for t in range(10):
    seed(f"reduce_{TYPES[t]}_sum", 0, t, param=0, n=100 + t, dm=t % 7)
    seed(f"scan_{TYPES[t]}_incl", 1, t, param=(t % 4) | 0 << 3, n=300, dm=(t + 1) % 7, ctx=t & 1)
for op in range(7):
    seed(f"reduce_i64_op{op}", 0, 6, param=op, n=50, dm=3)
    seed(f"scan_u16_op{op}_excl", 1, 3, param=op | 1 << 3, n=70, dm=4, seq=op & 1)
seed("scan_f32_prod_exact", 1, 8, param=1 | 1 << 3, n=2000, dm=0)
seed("scan_f64_min_nan", 1, 9, param=2, n=40, dm=5)
seed("scan_f32_sum_raw_threads", 1, 8, param=0, n=20000, dm=7, big=True)
seed("reduce_f64_sum_raw_threads", 0, 9, param=0, n=30000, dm=7, big=True, ctx=1)
seed("scan_i32_inplace", 1, 4, param=0 | 1 << 3, n=200, pm=7)
seed("scan_i32_overlap", 1, 4, param=0, n=200, pm=6, ovl=0x0010)
seed("scan_i16_overlap_misaligned", 1, 2, param=3, n=64, pm=6, ovl=0x8003)
seed("reduce_u32_out_inside_in", 0, 5, param=3, n=64, pm=6, ovl=0x4000 | 20)
seed("reduce_null_in", 0, 4, n=10, pm=4)
seed("reduce_null_out", 0, 4, n=10, pm=5)
seed("reduce_n0_null_in", 0, 7, n=0, pm=4)
seed("reduce_f32_xor_unsupported", 0, 8, param=6, n=10)
seed("reduce_bad_op", 0, 4, param=7, n=10)
seed("reduce_bad_op_neg", 0, 4, param=0x87, n=10)
seed("reduce_bad_type", 0, 10, n=10)
seed("scan_bad_type_neg", 1, 11, n=10)
seed("scan_bad_kind", 1, 4, param=2 << 3, n=10)
seed("scan_big_tiles", 1, 6, param=0, n=32767, dm=3, big=True, ctx=1)

# histograms
for t in range(10):
    seed(f"hist_even_{TYPES[t]}", 2, t, n=500, nbins=[1, 7, 256, 1000, 3][t % 5], dm=(t % 3) * 2,
         s1=bytes([rnd.randrange(256), 0]), s2=bytes([rnd.randrange(256), 1]))
    seed(f"hist_range_{TYPES[t]}", 3, t, n=400, nbins=[1, 5, 60][t % 3], dm=(t % 2) * 4 + 2 * (t % 3 == 2),
         s1=bytes([rnd.randrange(256)]), s2=bytes([t % 4]))
seed("hist_even_i64_whole_type", 2, 6, n=300, nbins=3, dm=3, s1=bytes([0, 0xFF]))
seed("hist_even_u64_whole_type", 2, 7, n=300, nbins=1000, dm=5, s1=bytes([0, 0xFF]))
seed("hist_even_f64_widest", 2, 9, n=300, nbins=7, dm=5, s1=bytes([0, 0xFF]))
seed("hist_even_nbins0", 2, 4, n=20, nbins=0)
seed("hist_even_nbins_huge", 2, 4, n=20, nbins=0xFFFF)
seed("hist_even_nbins_overflow", 2, 4, n=20, nbins=0xFFFE)
seed("hist_even_raw_bounds_f32", 2, 8, n=20, nbins=4, dm=1, s1=struct.pack("<f", 1.0), s2=struct.pack("<f", float("nan")))
seed("hist_even_raw_bounds_i32", 2, 4, n=20, nbins=4, dm=1, s1=struct.pack("<i", 5), s2=struct.pack("<i", -5))
seed("hist_even_null_lower", 2, 4, n=20, pm=7, ovl=1)
seed("hist_even_null_counts", 2, 4, n=20, pm=5)
seed("hist_even_counts_overlap", 2, 4, n=20, pm=6, ovl=0x1000)
seed("hist_range_raw_edges", 3, 9, n=50, nbins=6, dm=1)
seed("hist_range_null_edges", 3, 4, n=50, nbins=6, pm=7)
seed("hist_range_n0", 3, 5, n=0, nbins=6, pm=4)

# compaction
for t in range(10):
    for w, sel in enumerate([4, 5, 6, 7]):
        if (t + w) % 2 == 0 or t in (0, 8, 9):
            seed(f"{SEL[sel]}_{TYPES[t]}", sel, t, param=(t + w) % 6, n=100 + 37 * t, dm=[0, 4, 5, 6][(t + w) % 4])
seed("select_if_bad_cmp", 5, 4, param=6, n=10)
seed("partition_bad_cmp_neg", 7, 4, param=0x86, n=10)
seed("select_flagged_null_flags", 4, 4, n=10, pm=7)
seed("select_if_null_value", 5, 4, n=10, pm=7)
seed("unique_null_count", 6, 4, n=10, pm=7)
seed("unique_null_out", 6, 4, n=10, pm=5)
seed("unique_null_in", 6, 4, n=10, pm=4)
for k in range(4):
    seed(f"select_overlap_case{k}", [4, 5, 6, 7][k], 4, n=40, pm=6, ovl=k | 0x0100)
seed("select_flagged_big", 4, 2, n=20000, dm=4, big=True, ctx=1)

# sort
for t in range(10):
    seed(f"sort_{TYPES[t]}_asc", 8, t, param=0, n=200, dm=[0, 4, 5, 6][t % 4])
    seed(f"sort_pairs_{TYPES[t]}", 9, t, param=((t % 4) << 2) | (t & 1), n=150, dm=[5, 4, 0][t % 3])
seed("sort_f64_nan_desc", 8, 9, param=1, n=300, dm=5)
seed("sort_bad_order", 8, 4, param=2, n=10)
seed("sort_pairs_bad_value_size", 9, 4, param=5 << 2, n=10)
seed("sort_pairs_value_size0", 9, 4, param=4 << 2, n=10)
seed("sort_pairs_overlap", 9, 4, param=2 << 2, n=40, pm=6, ovl=0x0008)
seed("sort_pairs_null_values", 9, 4, param=0, n=40, pm=5)
seed("sort_null_keys", 8, 4, n=40, pm=4)
seed("sort_big", 8, 7, n=20000, dm=3, big=True)

# n == 0 with NULL arrays (allowed): every primitive
for sel in range(10):
    seed(f"n0_null_input_{SEL[sel]}", sel, 5, param=1, n=0, pm=4)
    seed(f"n0_null_output_{SEL[sel]}", sel, 5, param=1, n=0, pm=5)

# the rest of the API
for k in range(6):
    seed(f"misc_{k}", 10, 0, n=100, s1=bytes([k - 2 & 0xFF, k - 1 & 0xFF]), s2=bytes([k * 7, k * 3]), ovl=k * 13,
         pm=4 if k == 5 else 0)
seed("empty", 0, 0, n=0, pool=b"")
# sort and sort_pairs, out of place (s2[7]: bit 0, outputs in bits 1-2)
for t in range(10):
    seed(f"sort_copy_{TYPES[t]}", 8, t, param=t & 1, n=120 + t, dm=[0, 4, 5, 6][t % 4], s2=bytes(7) + b"\x01")
    seed(f"sort_pairs_copy_{TYPES[t]}", 9, t, param=((t % 4) << 2) | (t & 1), n=90, dm=[5, 4, 0][t % 3],
         s2=bytes(7) + b"\x01", seq=t & 1)
seed("sort_copy_aliased", 8, 5, n=64, s2=bytes(7) + b"\x03")
seed("sort_pairs_copy_keys_out_is_values_in", 9, 4, param=2 << 2, n=40, s2=bytes(7) + b"\x05")
seed("sort_copy_null_out", 8, 4, n=40, s2=bytes(7) + b"\x07")
seed("sort_copy_n1", 8, 9, n=1, s2=bytes(7) + b"\x01")
seed("sort_copy_big", 8, 8, n=20000, dm=3, big=True, ctx=1, s2=bytes(7) + b"\x01")
with open(os.path.join(out, "zero_bytes"), "wb") as f:
    pass
print(len(os.listdir(out)), "files in", out)
