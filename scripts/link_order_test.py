#!/usr/bin/env python3
"""Unit tests of scripts/link-order.py's parsers and its order (run by scripts/test).

The release build trusts these to read lld's map and callgrind's profiles: a parser that
misread either would leave the hot functions scattered, and only the memory benchmark would
show it. Each test feeds the shape of the real files (an lld `-Map` and a callgrind
`--dump-instr=yes` profile) with made-up names and addresses.
"""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("link_order", os.path.join(HERE, "link-order.py"))
lo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lo)

HEADER = "             VMA              LMA     Size Align Out     In      Symbol\n"


def sec(addr, size, file, name):
    """An input-section line of lld's map."""
    return f"{addr:>16x} {addr:>16x} {size:>8x} {16:>5}         {file}:({name})\n"


def sym(addr, name):
    """A symbol line under an input section."""
    return f"{addr:>16x} {addr:>16x} {0:>8x} {1:>5}                 {name}\n"


def write(dir, name, text):
    path = os.path.join(dir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class Sections(unittest.TestCase):
    def test_names_each_text_section_by_its_function_or_first_symbol(self):
        with tempfile.TemporaryDirectory() as d:
            m = write(d, "map", HEADER
                      + f"{0x2a8:>16x} {0x2a8:>16x} {0x18:>8x} {4:>5} .note.gnu.build-id\n"
                      + sec(0x2a8, 0x18, "<internal>", ".note.gnu.build-id")
                      + sec(0x3000, 0x40, "/lib/mcpconf.o", ".text._ZN7mcpconf4lint3run17h0123456789abcdefE")
                      + sym(0x3000, "mcpconf::lint::run")
                      + sec(0x1000, 0x16, "/lib/crt1.o", ".text")
                      + sym(0x1000, "_start")
                      + sym(0x1004, "_start_again")
                      + sec(0x2000, 0x20, "/lib/libc.a(memcpy.lo)", ".text.unlikely.memcpy_cold")
                      + sec(0x2100, 0x8, "/lib/empty.o", ".text")
                      + sec(0x4000, 0x10, "/lib/data.o", ".rodata.x"))
            self.assertEqual(lo.sections(m), [
                (0x1000, 0x16, "_start"),
                (0x2000, 0x20, "memcpy_cold"),
                (0x3000, 0x40, "_ZN7mcpconf4lint3run17h0123456789abcdefE"),
            ])


class Executed(unittest.TestCase):
    def test_reads_absolute_relative_and_repeated_positions(self):
        with tempfile.TemporaryDirectory() as d:
            cg = write(d, "cg.0", "# callgrind format\nversion: 1\npositions: instr line\n"
                       "events: Ir\n\nob=(2) ???\nfn=(1) 0x0000000000000100\n"
                       "0x100 0 1\n+4 0 1\n-2 0 3\n* 0 1\ncalls=1 0x200 0\n0x200 0 7\n"
                       "fn=(2)\n0x300 0 5\n+16 0 5\n")
            self.assertEqual(lo.executed(cg), {0x100, 0x104, 0x102, 0x200, 0x300, 0x310})


class Order(unittest.TestCase):
    def map_of(self, d, layout):
        text = HEADER
        for addr, size, name in layout:
            text += sec(addr, size, "/lib/o.o", ".text." + name) + sym(addr, name)
        return write(d, "map", text)

    def test_runs_in_numeric_order_each_adding_what_the_ones_before_did_not_run(self):
        with tempfile.TemporaryDirectory() as d:
            m = self.map_of(d, [(0x1000, 0x10, "a"), (0x1010, 0x20, "b"), (0x1030, 0x10, "c"),
                                (0x1040, 0x10, "d"), (0x1050, 0x0, "e")])
            prof = os.path.join(d, "profile")
            os.makedirs(prof)
            cg = "positions: instr line\nevents: Ir\nfn=(1)\n"
            write(prof, "cg.0", cg + "0x1018 0 1\n")                    # b
            write(prof, "cg.1", cg + "0x1000 0 1\n0x1012 0 1\n0x9000 0 1\n")  # a, b, outside
            write(prof, "cg.2", cg + "0x1040 0 1\n+15 0 1\n")          # d (its last byte)
            write(prof, "cg.10", cg + "0x1030 0 1\n0x1050 0 1\n")       # c, and e (size 0)
            out = os.path.join(d, "order")
            lo.order(m, prof, out)
            with open(out) as f:
                self.assertEqual(f.read().split(), ["b", "a", "d", "c", "e"])

    def test_a_profile_that_ran_nothing_of_the_map_fails(self):
        with tempfile.TemporaryDirectory() as d:
            m = self.map_of(d, [(0x1000, 0x10, "a")])
            write(d, "cg.0", "0x5000 0 1\n")
            with self.assertRaises(SystemExit):
                lo.order(m, d, os.path.join(d, "order"))


class Check(unittest.TestCase):
    def test_passes_when_the_ordered_functions_lead_the_text_and_fails_otherwise(self):
        with tempfile.TemporaryDirectory() as d:
            names = [f"f{i}" for i in range(40)]
            order = write(d, "order", "\n".join(names) + "\n")
            # Together at the start: 40 functions of 0x100 bytes, then the cold rest.
            together = [(0x1000 + 0x100 * i, 0x100, n) for i, n in enumerate(names)]
            cold = [(0x10000 + 0x100 * i, 0x100, f"cold{i}") for i in range(4000)]
            m = Order.map_of(self, d, together + cold)
            lo.check(m, order)
            # Spread over the text: the order did not take effect.
            spread = [(0x1000 + 0x10000 * i, 0x100, n) for i, n in enumerate(names)]
            m = Order.map_of(self, d, sorted(spread + cold))
            with self.assertRaises(SystemExit):
                lo.check(m, order)
            # Names that are not in the second link (fewer than 95 % found).
            m = Order.map_of(self, d, together[:37] + cold)
            with self.assertRaises(SystemExit):
                lo.check(m, order)


if __name__ == "__main__":
    unittest.main()
