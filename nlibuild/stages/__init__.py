"""One module per stage, each exposing a function from (store, config) to a result model.

A stage never imports another stage: what two stages share lives in a library module
(`nlibuild.ranking`, `nlibuild.batches`, `nlibuild.annotators`, ...) or, when it reads the
store, in `nlibuild.queries` (tests/test_architecture.py checks this).
"""
