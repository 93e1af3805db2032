"""One module per stage, each declaring its `Stage` (nlibuild/core/stage.py): the settings
model, the run from (store, settings) to a result model, and the summary line.

A stage never imports another stage: what two stages share lives in a library module
(`nlibuild.protocol.ranking`, `nlibuild.protocol.batches`, `nlibuild.labelling.annotators`,
...) or, when it reads the store, in `nlibuild.queries` (tests/test_architecture.py checks this).
"""
