"""The package layout: one-way imports between layers, no import cycles, kinds and features declared once."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from bot.core import kinds
from bot.core.config import ALL_FEATURES, Settings
from bot.features import DECLARATIONS, declared

from conftest import REPO

BOT = REPO / "bot"
# lower layers never import higher ones; a layer may import itself and anything below it
LAYERS = [
    ("bot.resources", "bot.core"),
    ("bot.kg",),
    ("bot.understanding",),
    ("bot.generation",),
    ("bot.answering",),
    ("bot.features", "bot.agent"),
    ("bot.dialogue",),
    ("bot.chat",),
    ("bot.replay", "bot.cli"),
]


def layer_of(module: str) -> int:
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The bot.* modules a file imports anywhere (functions and `if TYPE_CHECKING:` blocks included: an import for type
    hints alone still ties the two modules together)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("bot")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.startswith("bot"):
                found.add(base)
                found |= {f"{base}.{a.name}" for a in node.names if (BOT.parent / f"{base}.{a.name}".replace(".", "/")).with_suffix(".py").exists()
                          or (BOT.parent / f"{base}.{a.name}".replace(".", "/") / "__init__.py").exists()}
    return found


MODULES = {module_name(p): p for p in sorted(BOT.rglob("*.py"))}


def test_every_module_belongs_to_a_layer_and_imports_only_its_own_layer_or_lower_ones():
    upward = []
    for name, path in MODULES.items():
        for target in imports(path):
            if target in MODULES and layer_of(target) > layer_of(name):
                upward.append(f"{name} imports {target}")
    assert upward == []


def test_there_are_no_import_cycles():
    graph = {name: {t for t in imports(path) if t in MODULES and t != name} for name, path in MODULES.items()}
    graph = {name: targets - {t for t in targets if name.startswith(t + ".")} for name, targets in graph.items()}  # a package's own __init__
    seen, stack, cycles = set(), [], []

    def visit(node):
        if node in stack:
            cycles.append(stack[stack.index(node):] + [node])
            return
        if node in seen:
            return
        seen.add(node)
        stack.append(node)
        for target in sorted(graph[node]):
            visit(target)
        stack.pop()

    for name in sorted(graph):
        visit(name)
    assert cycles == []


def test_kind_names_are_written_only_in_the_kind_registry():
    """Everything else compares with, builds and dispatches on the Kind members, never on the bare names."""
    names = "|".join(k.value for k in kinds.Kind)
    kind_uses = [
        rf"""kind\s*(==|!=|is|in)\s*[({{\[]?\s*["']({names})["']""",  # kind == "factual", kind in ("unknown", ...)
        rf"""(Facts|Understanding)\([^)]*?["']({names})["']""",  # Facts("factual", ...)
        rf"""Reply\(.*,\s*["']({names})["']""",  # Reply(text, "clarify")
        rf"""handlers\[\s*["']({names})["']""",
    ]
    found = []
    for name, path in MODULES.items():
        if name == "bot.core.kinds":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = re.sub(r"""source=["']\w+["']""", "", line.split("#", 1)[0])  # fact sources share names with kinds
            if any(re.search(pattern, code) for pattern in kind_uses):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == []


def test_every_kind_has_a_spec_and_cued_kinds_have_cues():
    from bot.understanding.cues import CUES

    assert set(kinds.REGISTRY) == set(kinds.Kind)
    for kind in kinds.CUED_KINDS:
        assert kind is kinds.Kind.SMALLTALK or kind in CUES, kind
    for spec in kinds.REGISTRY.values():
        assert spec.answered_by in ("", "agent", *DECLARATIONS), spec


def test_the_feature_registry_and_the_settings_name_the_same_features():
    assert tuple(DECLARATIONS) == ALL_FEATURES == Settings().features
    for name in DECLARATIONS:
        feature = declared(name)
        assert feature.name == name and feature.summary and callable(feature.load)


def test_an_unknown_feature_name_is_refused_clearly():
    from bot.core.errors import FeatureError

    with pytest.raises(FeatureError, match="unknown feature 'nerr'"):
        declared("nerr")


def test_the_wheel_lists_every_package_under_bot():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {module_name(p.parent / "__init__.py") for p in BOT.rglob("__init__.py")}
    assert on_disk <= listed
