"""The layers, checked on the source: every import of the package (module level, in functions, under
TYPE_CHECKING) read with ``ast``, so a cycle, a cross-module ``_private`` import or a layer turned upside
down fails here, in CI, before review.

Layers, data walks one way: ``sql -> plan -> exec -> engine -> cli / jupyter``; ``acid`` at the bottom,
``txn`` above ``acid``; SQLAlchemy only in ``txn``; PySpark run only in ``exec`` (the engine, compactor and
surfaces name its types in annotations only).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "hiveacid_sql"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the module imported (a package module when it exists, else the name's module)
    name: str | None  # the name taken from it (``from m import name``), None for ``import m``
    line: int
    typing_only: bool = False  # under ``if TYPE_CHECKING:``: for annotations, never run


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _typing_only_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside an ``if TYPE_CHECKING:`` body."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                inside.update(id(n) for n in ast.walk(stmt))
    return inside


def _imports() -> Iterator[Import]:
    for module, path in MODULES.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = _typing_only_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(module, alias.name, None, node.lineno, id(node) in typing_only)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".") if is_package else module.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                for alias in node.names:
                    full = f"{origin}.{alias.name}"
                    target = full if full in MODULES else origin
                    yield Import(module, target, alias.name, node.lineno, id(node) in typing_only)


IMPORTS = list(_imports())


def _internal_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in IMPORTS:
        if imp.target in MODULES and imp.target != imp.source:
            graph[imp.source].add(imp.target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_package() -> None:
    """The checks below are only as good as the walk: it must find the modules and their imports."""
    assert {"hiveacid_sql.engine.session", "hiveacid_sql.plan.planner", "hiveacid_sql.txn.store"} <= set(MODULES)
    assert any(i.source == "hiveacid_sql.engine.session" and i.target == "hiveacid_sql.engine.context" for i in IMPORTS)
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle() -> None:
    assert _cycles(_internal_graph()) == []


def test_no_private_name_imported_from_another_module() -> None:
    offenders = [
        f"{i.source}:{i.line} imports {i.name} from {i.target}"
        for i in IMPORTS
        if i.name and i.name.startswith("_") and not i.name.startswith("__") and i.target.startswith("hiveacid_sql")
    ]
    assert offenders == []


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "hiveacid_sql"


#: what each layer may import from the package (besides itself); errors, settings and results are shared
#: leaves every layer may use.
SHARED = {"errors", "settings", "results"}
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "settings": {"errors"},
    "results": {"errors"},
    "acid": SHARED,
    "txn": SHARED | {"acid"},
    "sql": SHARED,
    "plan": SHARED | {"sql", "txn", "acid"},
    "exec": SHARED | {"plan", "sql", "txn", "acid", "reader"},  # reader: the Spark data source's read
    "compactor": SHARED | {"exec", "txn", "acid"},
    "engine": SHARED | {"compactor", "exec", "plan", "sql", "txn", "acid"},
    "cli": SHARED | {"engine", "compactor", "exec", "plan", "sql", "txn", "acid"},
    "jupyter": SHARED | {"cli", "engine", "sql", "acid"},
    "reader": SHARED | {"acid", "txn"},  # read_table: pyarrow only, no Spark
    "hiveacid_sql": SHARED | {"engine", "jupyter", "reader"},
}


def test_layers_import_only_downwards() -> None:
    assert set(ALLOWED) == {_layer(m) for m in MODULES}, "a new top-level module needs its place in ALLOWED"
    offenders = []
    for imp in IMPORTS:
        if not imp.target.startswith("hiveacid_sql"):
            continue
        source, target = _layer(imp.source), _layer(imp.target)
        if target != source and target not in ALLOWED[source]:
            offenders.append(f"{imp.source}:{imp.line} ({source}) imports {imp.target} ({target})")
    assert offenders == []


def _imports_of(library: str) -> list[Import]:
    return [i for i in IMPORTS if i.target == library or i.target.startswith(library + ".")]


def test_sqlalchemy_only_in_txn() -> None:
    offenders = [f"{i.source}:{i.line}" for i in _imports_of("sqlalchemy") if _layer(i.source) != "txn"]
    assert offenders == []


#: layers that hand Spark objects through (a SparkSession in, DataFrames out) and may name their types in
#: annotations (under ``TYPE_CHECKING``), without running any PySpark themselves.
SPARK_TYPES_IN_ANNOTATIONS = {"engine", "compactor", "cli", "jupyter"}


def test_pyspark_runs_only_in_exec() -> None:
    """One executor: every PySpark call is in ``exec/`` (the session start-up is exec/session.py too); the
    engine runs transactions around it and only names Spark's types in annotations."""
    offenders = [
        f"{i.source}:{i.line} imports {i.target}" + (" (for annotations)" if i.typing_only else "")
        for i in _imports_of("pyspark") + _imports_of("py4j")
        if _layer(i.source) != "exec" and not (i.typing_only and _layer(i.source) in SPARK_TYPES_IN_ANNOTATIONS)
    ]
    assert offenders == []


def test_the_walk_tells_annotation_imports_apart() -> None:
    context = [i for i in IMPORTS if i.source == "hiveacid_sql.engine.context" and i.target.startswith("pyspark")]
    assert context and all(i.typing_only for i in context)
    binder = [i for i in IMPORTS if i.source == "hiveacid_sql.exec.binder" and i.target.startswith("pyspark")]
    assert binder and not any(i.typing_only for i in binder)


def test_the_session_stays_small() -> None:
    """The Session is the public API, the transaction state and the dispatch; statement work lives in the
    handlers (engine/statements.py) and the executors, so the file stays under 200 lines."""
    lines = (PACKAGE / "engine" / "session.py").read_text(encoding="utf-8").count("\n")
    assert lines < 200, f"engine/session.py has {lines} lines"


def _plan_classes() -> set[str]:
    """The plan classes of plan/model.py: ``Plan``, everything deriving from it, and the unions of them."""
    tree = ast.parse((PACKAGE / "plan" / "model.py").read_text(encoding="utf-8"))
    names = {"Plan"}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id in names for b in node.bases):
            names.add(node.name)
    for node in tree.body:
        is_union = isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp)
        if is_union and {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} <= names:
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_no_module_switches_on_the_plan_class() -> None:
    """Consumers ask the plan (its target, reads, legs, locks, what EXPLAIN says); only the dispatch
    registries (dicts keyed by plan class in exec/dml.py and exec/dryrun.py) know the classes, so adding a
    statement kind is one plan class and one executor entry, no ``isinstance`` to find and extend."""
    plans = _plan_classes()
    assert {"Plan", "InsertPlan", "MergePlan", "DmlPlan"} <= plans
    offenders = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"):
                continue
            classes = node.args[1] if len(node.args) == 2 else ast.Constant(None)
            named = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(classes)
                     if isinstance(n, ast.Name | ast.Attribute)}
            if named & plans:
                offenders.append(f"{module}:{node.lineno} isinstance(.., {ast.unparse(classes)})")
    assert offenders == []
