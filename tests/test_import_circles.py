"""No module of `src/` imports itself back through others: every import circle is a design
knot, since neither side can be read, tested or moved without the other.

import-linter's contracts say which way named packages go, but not every version of it has a
check that no circle exists anywhere; this test asks grimp (import-linter's own graph library)
for the module import graph of the three packages, imports inside functions and under
`TYPE_CHECKING` included, and names each circle it finds.
"""

from __future__ import annotations

import grimp

PACKAGES = ("engine", "ledger", "pipelines")


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion, so that a deep graph does not meet Python's recursion limit), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    imported = graph.find_modules_directly_imported_by(target)
                    work.append((target, iter(sorted(imported))))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_no_module_of_engine_ledger_or_pipelines_imports_itself_back() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    found = []
    for circle in import_circles(graph):
        chain = graph.find_shortest_chain(circle[1], circle[0]) or []
        back = graph.find_shortest_chain(circle[0], circle[1]) or []
        found.append(f"{', '.join(circle)} (e.g. {' -> '.join(back)} -> {' -> '.join(chain[1:])})")
    assert found == [], "import circles:\n" + "\n".join(found)


def test_a_circle_is_found_and_named() -> None:
    """The check above can fail: two modules importing each other make one circle, a third
    importing one of them adds nothing to it."""
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="a")
    graph.add_import(importer="c", imported="a")
    assert import_circles(graph) == [["a", "b"]]
