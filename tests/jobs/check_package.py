#!/usr/bin/env python3
"""check_package.py PACKAGE_DIR: the analysis package keeps its shape. Fails (exit 1, one line per
finding) when a module is over MAX_FILE_LINES lines, a function over MAX_FUNCTION_LINES, the
modules import each other in a circle, a module edits sys.path, or a file points outside the
repository (../shared, reference-results.md). Standard library only; a fraction of a second."""
import ast
import os
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
OUTSIDE = ("../shared", "reference-results.md")


def package_imports(tree, package):
    """The sibling modules a module imports (from . import x, from .x import y)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package + "."):
            found.add(node.module.split(".")[1])
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
    problems, graph = [], {}
    for name in sorted(os.listdir(pkg_dir)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(pkg_dir, name)
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
        graph[name[:-3]] = package_imports(tree, package) - {name[:-3]}
    for circle in cycles(graph):
        problems.append("import circle: " + " -> ".join(circle))
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
