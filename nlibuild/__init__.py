"""nlibuild: build natural-language-inference corpora and check their quality.

Library first: everything the CLI does is a function call here. The names below load on
first use (PEP 562), so that the `nlibuild` command, which imports this package first,
does not pay for the import and export machinery when it runs another stage.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nlibuild._version import VERSION
from nlibuild.errors import ConfigError, ConflictError, InputError, NlibuildError, StoreError

if TYPE_CHECKING:
    from nlibuild.api import Corpus, create, open
    from nlibuild.models import ExportConfig, ImportConfig, InitConfig, Label
    from nlibuild.stages.export import run as export_corpus
    from nlibuild.stages.import_corpus import run as import_corpus
    from nlibuild.stages.info import summarise
    from nlibuild.store import Store

__version__ = VERSION

_LAZY = {
    "Corpus": ("nlibuild.api", "Corpus"),
    "create": ("nlibuild.api", "create"),
    "open": ("nlibuild.api", "open"),
    "ExportConfig": ("nlibuild.models", "ExportConfig"),
    "ImportConfig": ("nlibuild.models", "ImportConfig"),
    "InitConfig": ("nlibuild.models", "InitConfig"),
    "Label": ("nlibuild.models", "Label"),
    "Store": ("nlibuild.store", "Store"),
    "export_corpus": ("nlibuild.stages.export", "run"),
    "import_corpus": ("nlibuild.stages.import_corpus", "run"),
    "summarise": ("nlibuild.stages.info", "summarise"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'nlibuild' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


__all__ = [
    "ConfigError",
    "ConflictError",
    "Corpus",
    "ExportConfig",
    "ImportConfig",
    "InitConfig",
    "InputError",
    "Label",
    "NlibuildError",
    "Store",
    "StoreError",
    "__version__",
    "create",
    "export_corpus",
    "import_corpus",
    "open",
    "summarise",
]
