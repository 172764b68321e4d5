#!/usr/bin/env python3
"""Checks that an IREE export embeds our cubins, byte for byte.

Usage: iree_objects.py EXPORT_DIR SPLICED_MLIR IREE_DUMP_DIR

EXPORT_DIR is agent-export-iree's directory (the .iree.json manifest, the
.iree.mlir module, objects/); SPLICED_MLIR is the same module through
--agent-lower="... lower=false" (the splice path: each region's cubin in a
`gpu.binary @<region>_<object>`); IREE_DUMP_DIR is what
`iree-compile --iree-hal-dump-executable-binaries-to=` wrote. For every
exported dispatch: its cubin is an ELF image that defines the kernel, equals
the cubin the splice path embeds for that region, appears in the .iree.mlir
as the object's bytes, and appears unchanged in one of IREE's executable
binaries. Prints one line per dispatch and a summary; exits 1 on a mismatch.
"""
import glob
import json
import os
import re
import sys


def spliced_cubins(text):
    """Region function -> cubin bytes from `gpu.binary @<fn>_kernel [...bin = "..."]`."""
    found = {}
    for match in re.finditer(r'gpu\.binary @(\w+)_kernel\s+\[#gpu\.object<.*?bin = "((?:[^"\\]|\\.)*)"', text):
        raw, out, i = match.group(2), bytearray(), 0
        while i < len(raw):
            c = raw[i]
            if c != "\\":
                out += c.encode("latin-1")
                i += 1
            elif raw[i + 1] in '\\"':
                out += raw[i + 1].encode()
                i += 2
            elif raw[i + 1] == "n":
                out += b"\n"
                i += 2
            elif raw[i + 1] == "t":
                out += b"\t"
                i += 2
            else:
                out.append(int(raw[i + 1:i + 3], 16))
                i += 3
        found[match.group(1)] = bytes(out)
    return found


def main():
    export_dir, spliced_path, dump_dir = sys.argv[1:4]
    manifest_path, = glob.glob(os.path.join(export_dir, "*.iree.json"))
    manifest = json.load(open(manifest_path))
    module_text = open(os.path.join(export_dir, manifest["module"] + ".iree.mlir")).read()
    spliced = spliced_cubins(open(spliced_path, encoding="latin-1").read())
    dumped = [open(p, "rb").read() for p in glob.glob(os.path.join(dump_dir, "**", "*"), recursive=True)
              if os.path.isfile(p)]
    failures = checked = 0
    for region in manifest["regions"]:
        for dispatch in region["dispatches"]:
            cubin = open(os.path.join(export_dir, dispatch["cubin"]), "rb").read()
            problems = []
            if not cubin.startswith(b"\x7fELF"):
                problems.append("not an ELF image")
            if b"\0" + dispatch["kernel"].encode() + b"\0" not in cubin:
                problems.append("does not define " + dispatch["kernel"])
            if spliced.get(region["function"]) != cubin:
                problems.append("differs from the spliced cubin")
            if ('dense<"0x' + cubin.hex().upper() + '"> : vector<%dxi8>' % len(cubin)) not in module_text:
                problems.append("is not the object in the .iree.mlir")
            if not any(cubin in blob for blob in dumped):
                problems.append("is in no IREE executable binary")
            checked += 1
            failures += bool(problems)
            print("%s %s: %d bytes, %s" % (region["function"], dispatch["kernel"], len(cubin),
                                         "; ".join(problems) if problems else "identical"))
    print("%d of %d cubins identical in IREE's executables" % (checked - failures, checked))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
