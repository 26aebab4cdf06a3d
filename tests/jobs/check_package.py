#!/usr/bin/env python3
"""check_package.py PACKAGE_DIR: the analysis package keeps its shape. Fails (exit 1, one line per
finding) when a module (of the package or of a subpackage) is over MAX_FILE_LINES lines, a
function over MAX_FUNCTION_LINES, the modules import each other in a circle, a module edits sys.path, or a file points outside the
repository (../shared, reference-results.md). Standard library only; a fraction of a second."""
import ast
import os
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
OUTSIDE = ("../shared", "reference-results.md")


def module_name(pkg_dir, path):
    """The dotted name of a file below the package: readers/series.py -> readers.series,
    readers/__init__.py -> readers, __init__.py -> "" (the package itself)."""
    parts = os.path.splitext(os.path.relpath(path, pkg_dir))[0].split(os.sep)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_imports(tree, package, mod, is_init, modules):
    """The package's modules that module mod imports (from . import x, from ..y import z,
    from package.x import y), each resolved to the deepest module that exists."""
    here = mod.split(".") if mod else []
    if not is_init:
        here = here[:-1]  # a module's relative imports start from its package
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = here[:len(here) - (node.level - 1)] if node.level - 1 <= len(here) else None
            if base is None:
                continue
        elif node.module and node.module.startswith(package + "."):
            base, node_module = [], node.module[len(package) + 1:]
        else:
            continue
        target = base + ((node.module if node.level else node_module).split(".")
                         if (node.module if node.level else node_module) else [])
        for alias in node.names:
            full = ".".join(target + [alias.name])
            found.add(full if full in modules else ".".join(target))
    return found


def cycles(graph):
    """Every import circle as a list of modules (depth-first search, each circle once)."""
    found, state = [], {}

    def visit(mod, path):
        state[mod] = "open"
        for dep in sorted(graph.get(mod, ())):
            if state.get(dep) == "open":
                circle = path[path.index(dep):] + [dep]
                found.append(circle)
            elif dep not in state:
                visit(dep, path + [dep])
        state[mod] = "done"

    for mod in sorted(graph):
        if mod not in state:
            visit(mod, [mod])
    return found


def check(pkg_dir):
    package = os.path.basename(os.path.normpath(pkg_dir))
    files = sorted(os.path.join(root, n) for root, dirs, names in os.walk(pkg_dir)
                   for n in names if n.endswith(".py") and "__pycache__" not in root)
    modules = {module_name(pkg_dir, f) for f in files}
    problems, graph = [], {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            problems.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES})")
        tree = ast.parse(text, path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    problems.append(f"{path}:{node.lineno}: function {node.name} has {length} lines "
                                    f"(at most {MAX_FUNCTION_LINES})")
        if "sys.path" in text:
            problems.append(f"{path}: edits or reads sys.path (the package is found by PYTHONPATH or pip)")
        for needle in OUTSIDE:
            if needle in text:
                problems.append(f"{path}: points outside the repository ({needle})")
        mod = module_name(pkg_dir, path)
        graph[mod] = package_imports(tree, package, mod, path.endswith("__init__.py"),
                                     modules) - {mod}
    for circle in cycles(graph):
        problems.append("import circle: " + " -> ".join(m or package for m in circle))
    return problems, graph


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_package.py PACKAGE_DIR", file=sys.stderr)
        return 2
    problems, graph = check(argv[1])
    for p in problems:
        print("FAIL", p)
    print(f"check_package: {len(graph)} modules, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
