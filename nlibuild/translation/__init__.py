"""Checks of translations: each unit's checks (empty, untranslated, script, length ratio),
and whether a row-aligned translation lines up with its source (XNLI 3.2)."""
