"""The outside formats nlibuild reads and writes, one module per format.

- `corpora/`: NLI corpora, the released ones (MNLI, SNLI, OCNLI, XNLI, Hugging Face jsonl)
  and nlibuild's own jsonl: read by `nlibuild import`, written by `nlibuild export`.
  The registry `corpora.CORPUS_FORMATS` maps each `--format` to its `CorpusFormat`.
- `platforms/`: the annotation platforms (jsonl, csv, Label Studio, MTurk) elicitation
  and relabelling work goes out to and answers come back from. The registry
  `platforms.PLATFORMS` maps each `--format` to its `Platform`.
- `sources.py`: source texts for `ingest`; `units.py`: files of translation units;
  `tabular.py`: the reading and writing machinery every format shares; `table_rows.py`:
  the rows of any csv/tsv/jsonl/JSON-array/parquet file, for every import told its columns.

A new corpus format is one new module in `corpora/` whose `FORMAT` is a `CorpusFormat`
(a reader, a writer or both), plus one line in `CORPUS_FORMATS` (and its name in
`models.ImportFormat` or `models.ExportFormat`, which the CLI offers). A new platform is
one new module in `platforms/` whose `PLATFORM` is a `Platform`, plus one line in
`PLATFORMS` (and its name in `models.PlatformFormat`). The stages need no change.
"""
