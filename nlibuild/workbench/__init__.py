"""The workbench's library: what `nlibuild serve` shows annotators and records from them."""
