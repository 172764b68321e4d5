#!/usr/bin/env python3
"""Adds to an MLIR module a function that calls one of its functions on inputs that live in
device memory, for timing under IREE's tools.

iree-run-module and iree-benchmark-module make every `--input` a buffer the host can map:
under CUDA, memory from cuMemAllocManaged. A kernel reads such a buffer from device memory
only once its pages have moved there, and perhaps more slowly than memory from cuMemAlloc
after that (not measured yet: this is what the resident timing is for). A real
program's tensors are device-local (parameters, the results of earlier dispatches). So this
adds, for each input of `@FN`, a mutable `util.global` that an initializer fills on the device
(a hash of the element's index, values in [-1, 1)), `@resident_FN()`, which loads them and
calls `@FN`, and `@resident_set_FN(...)`, which stores new inputs. The setter keeps the
globals mutable, so that IREE does not hoist the call out of `@resident_FN`; compile with
`--iree-opt-const-eval=false`, or IREE evaluates the initializers at compile time (and fails
to, on a module with external dispatches).

    iree_resident_inputs.py MODULE.mlir FN OUT.mlir

MODULE.mlir is a program (a bench op, the example) or its export (export=iree), with
`func.func @FN(...) -> ... {` at the start of a line; its tensors are static.
"""

import re
import sys

# A module-level `func.func @fn(%a: tensor<...>, ...) -> RESULTS {`, on one line or more.
SIGNATURE = r"^func\.func @{fn}\((?P<args>.*?)\)\s*->\s*(?P<results>[^{{]*?)\s*\{{"
TENSOR = re.compile(r"tensor<([^>]*)>")


def read_signature(text, path, fn):
    pattern = re.compile(SIGNATURE.format(fn=re.escape(fn)), re.M | re.S)
    match = pattern.search(text)
    if not match:
        sys.exit(f"iree_resident_inputs: no public function @{fn} in {path}")
    args = TENSOR.findall(match.group("args"))
    results = TENSOR.findall(match.group("results"))
    if not args or not results:
        sys.exit(f"iree_resident_inputs: @{fn} takes or returns no tensor")
    return args, results


def initializer(number, spec):
    """A global of type tensor<spec> and its initializer: element i is
    ((i * 1103515245 + 12345 * (number + 1)) >> 16 & 0xffff) / 32768 - 1."""
    *dims, element = spec.split("x")
    if element not in ("f32", "f16", "bf16"):
        sys.exit(f"iree_resident_inputs: element type {element} is not handled")
    rank = len(dims)
    loops = ", ".join(f"d{d}" for d in range(rank))
    tensor = f"tensor<{spec}>"
    body = [f"%i0 = linalg.index 0 : index"]
    linear = "%i0"
    for d in range(1, rank):
        body += [f"%i{d} = linalg.index {d} : index",
                 f"%n{d} = arith.constant {dims[d]} : index",
                 f"%s{d} = arith.muli {linear}, %n{d} : index",
                 f"%l{d} = arith.addi %s{d}, %i{d} : index"]
        linear = f"%l{d}"
    body += [f"%x = arith.index_cast {linear} : index to i32",
             "%mul = arith.constant 1103515245 : i32",
             f"%add = arith.constant {12345 * (number + 1)} : i32",
             "%c16 = arith.constant 16 : i32",
             "%mask = arith.constant 65535 : i32",
             "%h0 = arith.muli %x, %mul : i32",
             "%h1 = arith.addi %h0, %add : i32",
             "%h2 = arith.shrui %h1, %c16 : i32",
             "%h3 = arith.andi %h2, %mask : i32",
             "%f = arith.uitofp %h3 : i32 to f32",
             "%scale = arith.constant 3.0517578125e-05 : f32",
             "%one = arith.constant 1.0 : f32",
             "%u = arith.mulf %f, %scale : f32",
             "%v = arith.subf %u, %one : f32"]
    value = "%v"
    if element != "f32":
        body.append(f"%t = arith.truncf %v : f32 to {element}")
        value = "%t"
    body.append(f"linalg.yield {value} : {element}")
    parallel = ", ".join(['"parallel"'] * rank)
    lines = "\n".join("    " + line for line in body)
    return f"""util.global private mutable @resident_in{number} : {tensor}
util.initializer {{
  %e = tensor.empty() : {tensor}
  %g = linalg.generic {{indexing_maps = [affine_map<({loops}) -> ({loops})>], iterator_types = [{parallel}]}}
      outs(%e : {tensor}) {{
  ^bb0(%o: {element}):
{lines}
  }} -> {tensor}
  util.global.store %g, @resident_in{number} : {tensor}
  util.return
}}
"""


def wrapper(fn, args, results):
    arg_types = ", ".join(f"tensor<{a}>" for a in args)
    result_types = ", ".join(f"tensor<{r}>" for r in results)
    loads = "\n".join(f"  %a{i} = util.global.load @resident_in{i} : tensor<{a}>"
                      for i, a in enumerate(args))
    operands = ", ".join(f"%a{i}" for i in range(len(args)))
    returned = ("%r" if len(results) == 1 else
                ", ".join(f"%r#{i}" for i in range(len(results))))
    count = "" if len(results) == 1 else f":{len(results)}"
    stores = "\n".join(f"  util.global.store %in{i}, @resident_in{i} : tensor<{a}>"
                       for i, a in enumerate(args))
    params = ", ".join(f"%in{i}: tensor<{a}>" for i, a in enumerate(args))
    # The setter keeps the globals mutable: IREE makes a global that only an initializer
    # stores immutable, and then hoists the call on it into an initializer of its own.
    return f"""func.func @resident_set_{fn}({params}) {{
{stores}
  return
}}
func.func @resident_{fn}() -> ({result_types}) {{
{loads}
  %r{count} = func.call @{fn}({operands}) : ({arg_types}) -> ({result_types})
  return {returned} : {result_types}
}}
"""


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: iree_resident_inputs.py MODULE.mlir FN OUT.mlir")
    module_path, fn, out_path = sys.argv[1:]
    text = open(module_path).read().rstrip()
    args, results = read_signature(text, module_path, fn)
    added = "".join(initializer(i, a) for i, a in enumerate(args)) + wrapper(fn, args, results)
    # A module op at the top: the additions go inside it, before its closing brace.
    if re.search(r"^module\b", text, re.M):
        if not text.endswith("}"):
            sys.exit(f"iree_resident_inputs: {module_path} does not end its module")
        text = text[:-1].rstrip() + "\n" + added + "}"
    else:
        text += "\n\n" + added
    open(out_path, "w").write(text + "\n")


if __name__ == "__main__":
    main()
